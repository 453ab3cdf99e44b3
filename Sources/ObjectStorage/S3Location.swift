import AsyncHTTPClient
import Foundation

/// Where a library's blobs are in object storage — `s3://bucket/prefix` — with the endpoint, region and credentials
/// found as the AWS SDKs find them: the standard environment variables first (`AWS_ENDPOINT_URL_S3` or
/// `AWS_ENDPOINT_URL`, `AWS_REGION` or `AWS_DEFAULT_REGION`, `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`), then the
/// shared files of the profile `AWS_PROFILE` names (else `default`): `~/.aws/credentials` (or
/// `AWS_SHARED_CREDENTIALS_FILE`), which must be readable by its owner only, and `~/.aws/config` (or
/// `AWS_CONFIG_FILE`) for `region` and `endpoint_url`.
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public var bucket: String
    /// The folder of the keys, empty or ending in `/`.
    public var prefix: String
    public var endpoint: URL
    public var region: String
    public var credentials: S3Credentials

    /// An error that says what is missing or wrong, for a person to fix.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Whether `text` names object storage (`s3://…`).
    public static func handles(_ text: String) -> Bool { text.lowercased().hasPrefix("s3://") }

    /// The location `text` names, with the endpoint and credentials from `environment` and the files in `home`.
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment, home: URL? = nil) throws(Problem) {
        guard Self.handles(text), let url = URLComponents(string: text), let bucket = url.host, !bucket.isEmpty else {
            throw Problem(description: "\(text) is not an object storage location: write s3://bucket/prefix")
        }
        guard url.query == nil, url.user == nil, url.password == nil, url.port == nil else {
            throw Problem(
                description: "s3://\(bucket)… carries no options, user or port: the endpoint and credentials come from AWS_* variables or ~/.aws")
        }
        var prefix = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        guard !prefix.split(separator: "/", omittingEmptySubsequences: false).dropLast().contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else { throw Problem(description: "s3://\(bucket)/\(prefix): the prefix has an empty, . or .. part") }
        self.bucket = bucket
        self.prefix = prefix

        let home = home ?? environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let configFile = environment["AWS_CONFIG_FILE"].map { URL(fileURLWithPath: $0) } ?? home.appendingPathComponent(".aws/config")
        let config = try Self.section(profile == "default" ? "default" : "profile \(profile)", of: configFile, secret: false)

        let key = environment["AWS_ACCESS_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 }
        let secret = environment["AWS_SECRET_ACCESS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if let key, let secret {
            credentials = S3Credentials(
                accessKeyID: key, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        } else {
            let file =
                environment["AWS_SHARED_CREDENTIALS_FILE"].map { URL(fileURLWithPath: $0) } ?? home.appendingPathComponent(".aws/credentials")
            let shared = try Self.section(profile, of: file, secret: true)
            guard let key = shared["aws_access_key_id"], let secret = shared["aws_secret_access_key"] else {
                throw Problem(
                    description:
                        "no credentials for s3://\(bucket): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or write them in \(file.path) [\(profile)]"
                )
            }
            credentials = S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: shared["aws_session_token"])
        }
        region =
            [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"], config["region"]].compactMap { $0 }.first { !$0.isEmpty }
            ?? "us-east-1"
        let endpointText =
            [environment["AWS_ENDPOINT_URL_S3"], environment["AWS_ENDPOINT_URL"], config["endpoint_url"]].compactMap { $0 }.first { !$0.isEmpty }
            ?? "https://s3.\(region).amazonaws.com"
        guard let endpoint = URL(string: endpointText), ["http", "https"].contains(endpoint.scheme?.lowercased() ?? ""), endpoint.host != nil
        else { throw Problem(description: "the object storage endpoint \(endpointText) is not an http(s) URL") }
        self.endpoint = endpoint
    }

    /// The key of `name` under the prefix.
    public func key(_ name: String) -> String { prefix + name }

    /// A client for the bucket, through `http`.
    public func client(http: HTTPClient = S3Client.sharedHTTPClient) -> S3Client {
        S3Client(endpoint: endpoint, bucket: bucket, signer: SigV4Signer(credentials: credentials, region: region), http: http)
    }

    /// How messages name it (no credentials).
    public var description: String { "s3://\(bucket)/\(prefix) at \(endpoint.absoluteString)" }

    /// The `key = value` lines of `[name]` in an AWS shared file (empty when the file or section is absent). A file
    /// that holds secrets must be its owner's alone, as libpq has it for `.pgpass`.
    static func section(_ name: String, of file: URL, secret: Bool) throws(Problem) -> [String: String] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path) else { return [:] }
        if secret, let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw Problem(description: "\(file.path) holds credentials and others can read it: chmod 600 \(file.path)")
        }
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [:] }
        var values: [String: String] = [:]
        var inSection = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                inSection = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces) == name && line.hasSuffix("]")
                continue
            }
            guard inSection, let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: equals)...].trimmingCharacters(
                in: .whitespaces)
        }
        return values
    }
}
