import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The keys that sign requests to an S3-compatible store: an access key and its secret, and the session token of
/// temporary credentials.
public struct S3Credentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

/// AWS Signature Version 4, as S3 takes it: in an `Authorization` header, or in the query of a presigned URL.
///
/// S3's flavour of the canonical request: the path is percent-encoded once and not normalized (an object key may hold
/// `//` or `.`), query names and values are encoded and sorted, header values trimmed with inner runs of spaces made
/// one. Every step is a function of its own, so that the tests check each against AWS's published examples.
public struct SigV4Signer: Sendable {
    public var credentials: S3Credentials
    public var region: String
    public var service: String

    /// The payload hash of a request whose body is not signed (presigned URLs; streamed uploads over TLS).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// The SHA-256 of nothing: the payload hash of a request without a body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers that sign a request: `x-amz-date`, `x-amz-content-sha256` (S3 wants it; `includeContentHash`
    /// false for services that do not), `x-amz-security-token` for temporary credentials, and `Authorization`. The
    /// request's own `headers` are signed as they are, with `host` from `url`.
    public func signingHeaders(
        method: String, url: URL, headers: [(name: String, value: String)] = [], payloadHash: String, date: Date,
        includeContentHash: Bool = true
    ) -> [(name: String, value: String)] {
        let stamp = Self.timestamp(date)
        var added: [(name: String, value: String)] = [("x-amz-date", stamp)]
        if includeContentHash { added.append(("x-amz-content-sha256", payloadHash)) }
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        let all = [("host", Self.hostHeader(url))] + headers + added
        let (canonical, signed) = Self.canonicalRequest(
            method: method, path: Self.canonicalPath(url), query: Self.canonicalQuery(Self.queryItems(url)), headers: all,
            payloadHash: payloadHash)
        let signature = self.signature(of: canonical, timestamp: stamp)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(stamp)), SignedHeaders=\(signed), Signature=\(signature)"
        return added + [("Authorization", authorization)]
    }

    /// `url` presigned for `method` until `expires` seconds after `date` (S3 allows up to 604,800: seven days): the
    /// query carries the algorithm, the credential's scope, the date, the expiry, the signed headers (`host`), the
    /// session token, and the signature.
    public func presignedURL(method: String = "GET", url: URL, expires: Int, date: Date) -> URL {
        let stamp = Self.timestamp(date)
        var items = Self.queryItems(url)
        items += [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(stamp))"),
            ("X-Amz-Date", stamp), ("X-Amz-Expires", String(expires)), ("X-Amz-SignedHeaders", "host"),
        ]
        if let token = credentials.sessionToken { items.append(("X-Amz-Security-Token", token)) }
        let query = Self.canonicalQuery(items)
        let (canonical, _) = Self.canonicalRequest(
            method: method, path: Self.canonicalPath(url), query: query, headers: [("host", Self.hostHeader(url))],
            payloadHash: Self.unsignedPayload)
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.percentEncodedPath = Self.canonicalPath(url)
        components.percentEncodedQuery = query + "&X-Amz-Signature=" + signature(of: canonical, timestamp: stamp)
        return components.url ?? url
    }

    // MARK: The steps

    /// The credential scope: `20130524/us-east-1/s3/aws4_request`.
    func scope(_ timestamp: String) -> String { "\(timestamp.prefix(8))/\(region)/\(service)/aws4_request" }

    /// The signature of a canonical request made at `timestamp` (`yyyyMMdd'T'HHmmss'Z'`), in hex.
    func signature(of canonicalRequest: String, timestamp: String) -> String {
        Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign(canonicalRequest, timestamp: timestamp).utf8), using: signingKey(timestamp)))
    }

    /// `AWS4-HMAC-SHA256`, the time, the scope and the canonical request's SHA-256, a line each.
    func stringToSign(_ canonicalRequest: String, timestamp: String) -> String {
        "AWS4-HMAC-SHA256\n\(timestamp)\n\(scope(timestamp))\n\(Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8))))"
    }

    /// The key for the day, region and service, derived from the secret by HMAC in four steps.
    func signingKey(_ timestamp: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [String(timestamp.prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// The canonical request and its signed header names: the method, the path, the query, each header as
    /// `name:value` (names lower-cased and sorted, values trimmed, inner runs of spaces made one, repeated names
    /// joined with commas), the names joined with `;`, and the payload's hash.
    static func canonicalRequest(
        method: String, path: String, query: String, headers: [(name: String, value: String)], payloadHash: String
    ) -> (request: String, signedHeaders: String) {
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            let trimmed = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            merged[name.lowercased(), default: []].append(trimmed)
        }
        let names = merged.keys.sorted()
        let lines = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        let signed = names.joined(separator: ";")
        return ("\(method)\n\(path)\n\(query)\n\(lines)\n\(signed)\n\(payloadHash)", signed)
    }

    /// The URL's path as S3 signs it: each byte but the unreserved ones and `/` percent-encoded, once; `/` when empty.
    static func canonicalPath(_ url: URL) -> String {
        let raw = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        let path = raw.removingPercentEncoding ?? raw
        return path.isEmpty ? "/" : encode(path, keepingSlashes: true)
    }

    /// The URL's query items, decoded (a name without `=` has an empty value).
    static func queryItems(_ url: URL) -> [(name: String, value: String)] {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).removingPercentEncoding ?? String(text) }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// Query items encoded and sorted by name, then value: `name=value` joined with `&`.
    static func canonicalQuery(_ items: [(name: String, value: String)]) -> String {
        items.map { (encode($0.name, keepingSlashes: false), encode($0.value, keepingSlashes: false)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// RFC 3986 encoding as SigV4 has it: every UTF-8 byte but `A–Z a–z 0–9 - _ . ~` (and `/` where kept) as `%XX`.
    static func encode(_ text: String, keepingSlashes: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF")
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                out.append("/")
            default:
                out.append("%")
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 15)])
            }
        }
        return out
    }

    /// The `host` header of `url`: the host, and the port when it is not the scheme's.
    static func hostHeader(_ url: URL) -> String {
        let host = url.host ?? ""
        guard let port = url.port, !(url.scheme == "https" && port == 443), !(url.scheme == "http" && port == 80) else { return host }
        return "\(host):\(port)"
    }

    /// `date` as SigV4 writes it: `yyyyMMdd'T'HHmmss'Z'`, UTC.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour),
            Int(parts.tm_min), Int(parts.tm_sec))
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
