import Foundation
import ObjectStorage
import Testing

/// Where `s3://bucket/prefix` points and with which credentials, found as the AWS SDKs find them.
@Suite("S3 locations")
struct S3LocationTests {
    /// A home folder of the test's own, with `.aws/config` and `.aws/credentials` as given (mode 0600 unless said).
    func home(config: String? = nil, credentials: String? = nil, credentialsMode: Int = 0o600) throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("s3-location-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".aws"), withIntermediateDirectories: true)
        if let config { try Data(config.utf8).write(to: home.appendingPathComponent(".aws/config")) }
        if let credentials {
            let file = home.appendingPathComponent(".aws/credentials")
            try Data(credentials.utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: credentialsMode], ofItemAtPath: file.path)
        }
        return home
    }

    @Test func theEnvironmentComesFirst() throws {
        let home = try home(
            config: "[default]\nregion = eu-west-1\nendpoint_url = http://config:1\n",
            credentials: "[default]\naws_access_key_id = file\naws_secret_access_key = filesecret\n")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_REGION": "us-west-2", "AWS_ACCESS_KEY_ID": "key", "AWS_SECRET_ACCESS_KEY": "secret",
        ]
        let location = try S3Location("s3://photos/alice", environment: environment, home: home)
        #expect(location.bucket == "photos" && location.prefix == "alice/")
        #expect(location.endpoint.absoluteString == "http://127.0.0.1:9000" && location.region == "us-west-2")
        #expect(location.credentials == S3Credentials(accessKeyID: "key", secretAccessKey: "secret"))
        #expect(location.key("sha256/ab/x") == "alice/sha256/ab/x")
        #expect(!location.description.contains("secret"))
        // AWS_ENDPOINT_URL_S3 is the service's own and wins over the general one.
        let s3Only = try S3Location("s3://photos", environment: environment.merging(["AWS_ENDPOINT_URL_S3": "https://s3.example"]) { $1 }, home: home)
        #expect(s3Only.endpoint.absoluteString == "https://s3.example" && s3Only.prefix == "")
    }

    @Test func theSharedFilesOfTheProfileComeNext() throws {
        let home = try home(
            config: "[default]\nregion = eu-west-1\n[profile backup]\nregion = eu-central-1\nendpoint_url = http://seaweed:8333\n",
            credentials:
                "[default]\naws_access_key_id = d\naws_secret_access_key = ds\n\n[backup]\naws_access_key_id = b\naws_secret_access_key = bs\n")
        defer { try? FileManager.default.removeItem(at: home) }
        let plain = try S3Location("s3://photos/a/b/", environment: [:], home: home)
        #expect(plain.credentials.accessKeyID == "d" && plain.region == "eu-west-1" && plain.prefix == "a/b/")
        #expect(plain.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com")
        let backup = try S3Location("s3://photos", environment: ["AWS_PROFILE": "backup"], home: home)
        #expect(backup.credentials.secretAccessKey == "bs" && backup.region == "eu-central-1")
        #expect(backup.endpoint.absoluteString == "http://seaweed:8333")
    }

    @Test func credentialsOthersCanReadAreRefused() throws {
        let home = try home(credentials: "[default]\naws_access_key_id = k\naws_secret_access_key = s\n", credentialsMode: 0o644)
        defer { try? FileManager.default.removeItem(at: home) }
        do {
            _ = try S3Location("s3://photos", environment: [:], home: home)
            Issue.record("a credentials file others can read was used")
        } catch {
            #expect(error.description.contains("chmod 600"), "\(error)")
        }
    }

    @Test func addressesThatAreNotALocationAreClearErrors() throws {
        let home = try home()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"]
        for bad in ["s3://", "http://photos/a", "s3://photos/a//b", "s3://photos/../x", "s3://key:secret@photos/a", "s3://photos/a?region=x"] {
            #expect(throws: S3Location.Problem.self, "\(bad)") { _ = try S3Location(bad, environment: environment, home: home) }
        }
        #expect(throws: S3Location.Problem.self) { _ = try S3Location("s3://photos", environment: [:], home: home) }
        #expect(throws: S3Location.Problem.self) {
            _ = try S3Location("s3://photos", environment: environment.merging(["AWS_ENDPOINT_URL": "ftp://x"]) { $1 }, home: home)
        }
    }
}
