import CoreImage

/// The entry points the command-line build calls.
public enum PortedClient {
    public static func exportSepia(of url: URL, to destination: URL) throws -> CGSize? {
        try PhotoEditor().exportSepia(of: url, to: destination)
    }
}
