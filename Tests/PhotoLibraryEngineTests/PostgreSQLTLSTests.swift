import Foundation
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// TLS to the database server as libpq's `sslmode` has it, against the test server's TLS (a certificate authority of
/// its own, `OPENPHOTOKIT_TEST_POSTGRES_CA`, and a certificate for localhost and 127.0.0.1).
@Suite(
    "PostgreSQL over TLS",
    .enabled(if: ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_POSTGRES_CA"] != nil, "needs the test server's TLS"))
struct PostgreSQLTLSTests {
    static var server: URLComponents? {
        StoreUnderTest.postgresURL.flatMap { URLComponents(string: $0) }
    }
    static var authority: String { ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_POSTGRES_CA"] ?? "" }

    /// The test server's address with `host` and the query items given, for a new library.
    static func url(host: String, _ items: [String: String]) throws -> URL {
        var components = try #require(server)
        components.host = host
        components.queryItems =
            [URLQueryItem(name: "library", value: "tls_\(UUID().uuidString.prefix(8).lowercased())")]
            + items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return try #require(components.url)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var sslmode: String?
        var host: String
        var withAuthority: Bool
        var encrypted: Bool
        var testDescription: String { "sslmode=\(sslmode ?? "(default)") host=\(host)\(withAuthority ? " sslrootcert" : "")" }
    }

    /// Each mode connects as libpq's would, and the session is encrypted exactly when the mode asks or prefers it.
    @Test(arguments: [
        Case(sslmode: "disable", host: "127.0.0.1", withAuthority: false, encrypted: false),
        Case(sslmode: nil, host: "127.0.0.1", withAuthority: false, encrypted: true),
        Case(sslmode: "prefer", host: "localhost", withAuthority: false, encrypted: true),
        Case(sslmode: "require", host: "127.0.0.1", withAuthority: false, encrypted: true),
        Case(sslmode: "verify-ca", host: "127.0.0.1", withAuthority: true, encrypted: true),
        Case(sslmode: "verify-full", host: "localhost", withAuthority: true, encrypted: true),
        Case(sslmode: "verify-full", host: "127.0.0.1", withAuthority: true, encrypted: true),
    ])
    func eachModeConnectsAsLibpqDoes(_ test: Case) throws {
        var items: [String: String] = [:]
        if let mode = test.sslmode { items["sslmode"] = mode }
        if test.withAuthority { items["sslrootcert"] = Self.authority }
        let url = try Self.url(host: test.host, items)
        let store = try PostgreSQLMetadataStore.open(url: url)
        defer { try? PostgreSQLMetadataStore.removeLibrary(url: url) }
        let row = try store.read { db in
            try db.fetchOne(sql: "SELECT CASE WHEN ssl THEN 1 ELSE 0 END, coalesce(version, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        }
        let encrypted: Int64 = try #require(row)[0]
        #expect(encrypted == (test.encrypted ? 1 : 0))
        if test.encrypted {
            let version: String = try #require(row)[1]
            #expect(version.hasPrefix("TLSv1."), "\(version)")
        }
    }

    /// A certificate that does not check out is a typed error naming TLS, within the connect timeout; nothing is
    /// sent in the clear instead.
    @Test func aCertificateThatDoesNotCheckOutIsATypedError() throws {
        // The system's authorities do not know the test server's.
        for mode in ["verify-ca", "verify-full"] {
            let url = try Self.url(host: "localhost", ["sslmode": mode])
            let start = Date()
            do {
                _ = try PostgreSQLMetadataStore.open(url: url)
                Issue.record("sslmode=\(mode) accepted a certificate no trusted authority signed")
            } catch {
                #expect(error.code == LibraryError.libraryVolumeOffline("").code)
                #expect(error.message.localizedCaseInsensitiveContains("certificate") || error.message.contains("TLS"), "\(error.message)")
            }
            #expect(Date().timeIntervalSince(start) < 12)
        }
    }

    /// Settings that cannot work are refused before any connection: an unknown mode, an authority file that is not
    /// there.
    @Test func settingsThatCannotWorkAreRefused() throws {
        for items in [["sslmode": "always"], ["sslmode": "verify-full", "sslrootcert": "/nonexistent/ca.pem"]] {
            let url = try Self.url(host: "127.0.0.1", items)
            do {
                _ = try PostgreSQLMetadataStore.open(url: url)
                Issue.record("\(items) accepted")
            } catch {
                #expect(error.code == LibraryError.invalidResource("").code, "\(error)")
            }
        }
    }
}
