import Crypto
import Foundation
import Testing

@testable import ObjectStorage

/// SigV4 checked against AWS's published examples: the SigV4 test suite (`AKIDEXAMPLE`, service `service`,
/// 2015-08-30T12:36:00Z) and the S3 API reference's signature calculations (`examplebucket`, 2013-05-24T00:00:00Z).
@Suite("SigV4")
struct SigV4SignerTests {
    /// The test suite's credentials and time.
    static let suite = SigV4Signer(
        credentials: S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z

    /// The S3 reference's credentials and time.
    static let s3 = SigV4Signer(
        credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    static let s3Date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z

    static func signature(_ headers: [(name: String, value: String)]) -> String? {
        headers.first { $0.name == "Authorization" }?.value.components(separatedBy: "Signature=").last
    }

    struct SuiteCase: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var url: String
        var signature: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        SuiteCase(
            name: "get-vanilla", method: "GET", url: "https://example.amazonaws.com/",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        SuiteCase(
            name: "post-vanilla", method: "POST", url: "https://example.amazonaws.com/",
            signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        SuiteCase(
            name: "get-vanilla-empty-query-key", method: "GET", url: "https://example.amazonaws.com/?Param1=value1",
            signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
        SuiteCase(
            name: "get-utf8", method: "GET", url: "https://example.amazonaws.com/%E1%88%B4",
            signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
    ])
    func theTestSuitesRequestsSignAsPublished(_ test: SuiteCase) throws {
        let headers = Self.suite.signingHeaders(
            method: test.method, url: try #require(URL(string: test.url)), payloadHash: SigV4Signer.emptyPayloadHash, date: Self.suiteDate,
            includeContentHash: false)
        #expect(headers.first { $0.name == "x-amz-date" }?.value == "20150830T123600Z")
        #expect(
            headers.first { $0.name == "Authorization" }?.value
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=\(test.signature)"
        )
    }

    /// The canonical form of headers: lower-cased sorted names, values trimmed and inner spaces made one, repeated
    /// names joined in order (the suite's get-header-value-trim and get-header-value-order).
    @Test func headersAreCanonicalAsTheSuiteHasThem() {
        let (trim, signedTrim) = SigV4Signer.canonicalRequest(
            method: "GET", path: "/", query: "",
            headers: [
                ("Host", "example.amazonaws.com"), ("My-Header1", " value1"), ("My-Header2", " \"a   b   c\""),
                ("X-Amz-Date", "20150830T123600Z"),
            ], payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(
            trim
                == "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        #expect(signedTrim == "host;my-header1;my-header2;x-amz-date")
        let (order, _) = SigV4Signer.canonicalRequest(
            method: "GET", path: "/", query: "",
            headers: [
                ("Host", "example.amazonaws.com"), ("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"),
                ("My-Header1", "value2"), ("X-Amz-Date", "20150830T123600Z"),
            ], payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(order.contains("\nmy-header1:value4,value1,value3,value2\n"))
    }

    /// The S3 API reference's four header-signed examples.
    @Test func s3sExamplesSignAsPublished() throws {
        let getObject = Self.s3.signingHeaders(
            method: "GET", url: try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")),
            headers: [("Range", "bytes=0-9")], payloadHash: SigV4Signer.emptyPayloadHash, date: Self.s3Date)
        #expect(Self.signature(getObject) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(getObject.first { $0.name == "Authorization" }?.value.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,") == true)

        let body = Data("Welcome to Amazon S3.".utf8)
        let bodyHash = SigV4Signer.hex(SHA256Digest.of(body))
        #expect(bodyHash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let putObject = Self.s3.signingHeaders(
            method: "PUT", url: try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test$file.text")),
            headers: [("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")], payloadHash: bodyHash,
            date: Self.s3Date)
        #expect(Self.signature(putObject) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")

        let lifecycle = Self.s3.signingHeaders(
            method: "GET", url: try #require(URL(string: "https://examplebucket.s3.amazonaws.com/?lifecycle")),
            payloadHash: SigV4Signer.emptyPayloadHash, date: Self.s3Date)
        #expect(Self.signature(lifecycle) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")

        let list = Self.s3.signingHeaders(
            method: "GET", url: try #require(URL(string: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J")),
            payloadHash: SigV4Signer.emptyPayloadHash, date: Self.s3Date)
        #expect(Self.signature(list) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    /// The S3 reference's presigned URL.
    @Test func s3sPresignedURLIsAsPublished() throws {
        let url = Self.s3.presignedURL(
            url: try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")), expires: 86400, date: Self.s3Date)
        #expect(
            url.absoluteString
                == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        )
    }

    /// Keys as S3 signs them: every reserved byte encoded once, slashes kept, nothing normalized; the port in `host`
    /// only when it is not the scheme's.
    @Test func pathsAndHostsAreSignedAsS3Has() throws {
        #expect(SigV4Signer.canonicalPath(try #require(URL(string: "http://h/a%20b/./c//d+e"))) == "/a%20b/./c//d%2Be")
        #expect(SigV4Signer.canonicalPath(try #require(URL(string: "http://h"))) == "/")
        #expect(SigV4Signer.hostHeader(try #require(URL(string: "http://127.0.0.1:8333/b"))) == "127.0.0.1:8333")
        #expect(SigV4Signer.hostHeader(try #require(URL(string: "https://s3.example.com:443/b"))) == "s3.example.com")
        #expect(SigV4Signer.canonicalQuery([("b", "2"), ("a", "x y"), ("a", "1")]) == "a=1&a=x%20y&b=2")
    }

    /// Temporary credentials send and sign their session token.
    @Test func aSessionTokenIsSentAndSigned() throws {
        var signer = Self.s3
        signer.credentials.sessionToken = "token/with+chars"
        let headers = signer.signingHeaders(
            method: "GET", url: try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")),
            payloadHash: SigV4Signer.emptyPayloadHash, date: Self.s3Date)
        #expect(headers.first { $0.name == "x-amz-security-token" }?.value == "token/with+chars")
        #expect(
            headers.first { $0.name == "Authorization" }?.value.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,")
                == true)
        let presigned = signer.presignedURL(
            url: try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")), expires: 60, date: Self.s3Date)
        #expect(presigned.query?.contains("X-Amz-Security-Token=token%2Fwith%2Bchars") == true)
    }
}

extension SHA256Digest {
    static func of(_ data: Data) -> SHA256Digest { SHA256.hash(data: data) }
}
