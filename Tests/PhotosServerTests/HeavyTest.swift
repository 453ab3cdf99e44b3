import PhotosTestHarness
import Testing

/// A trait for tests that run many processes at once (a browser, a cluster): they run one at a time across the test
/// process's suites (``HeavyTestGate``).
struct HeavyTest: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // The suite itself is no test to hold the gate for; its tests are.
        guard testCase != nil else { return try await function() }
        try await HeavyTestGate.shared.run { try await function() }
    }
}

extension Trait where Self == HeavyTest {
    /// One at a time with the other heavy tests of the process.
    static var heavy: Self { HeavyTest() }
}
