import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension PHPhotoLibrary {
    /// The files an import takes from the paths it is given: hidden entries skipped, names sorted, each folder
    /// visited once by (device, inode) — a link back to a folder on the way is skipped and reported, never followed
    /// in circles — at most ``maximumFolderDepth`` deep. Names that are not UTF-8 cannot travel through `URL`
    /// (Foundation replaces the bad bytes, and the file is then not found), so they are reported, escaped, as failures.
    struct FolderWalk {
        let recursive: Bool
        var files: [URL] = []
        var failures: [ImportFailure] = []
        var skippedLinks: [URL] = []
        private var visited = Set<FolderID>()

        private struct FolderID: Hashable {
            var device: UInt64
            var inode: UInt64
        }

        init(recursive: Bool) {
            self.recursive = recursive
        }

        /// Collects a path given by the caller (followed even when it is a link).
        mutating func collect(_ url: URL, depth: Int) {
            var info = stat()
            guard stat(url.path, &info) == 0 else {
                let reason = errno == ELOOP ? "a symbolic link loop" : "no such file or folder"
                failures.append(ImportFailure(file: url, reason: reason))
                return
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                enter(url, info: info, depth: depth)
            } else {
                files.append(url)
            }
        }

        private mutating func enter(_ folder: URL, info: stat, depth: Int) {
            guard visited.insert(FolderID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else {
                skippedLinks.append(folder)
                return
            }
            guard depth < PHPhotoLibrary.maximumFolderDepth else {
                failures.append(ImportFailure(file: folder, reason: "folders nest more than \(PHPhotoLibrary.maximumFolderDepth) levels deep"))
                return
            }
            guard let directory = opendir(folder.path) else {
                failures.append(ImportFailure(file: folder, reason: "cannot list the folder: \(String(cString: strerror(errno)))"))
                return
            }
            var names: [[UInt8]] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
                if name.first == UInt8(ascii: ".") { continue }  // hidden files, `.` and `..`
                names.append(name)
            }
            closedir(directory)
            for bytes in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                guard let name = String(validating: bytes, as: UTF8.self) else {
                    let escaped = bytes.map { $0 < 0x80 && $0 >= 0x20 ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
                    failures.append(
                        ImportFailure(
                            file: folder.appendingPathComponent(escaped),
                            reason: "the file name is not valid UTF-8 (shown escaped); rename it to import it"))
                    continue
                }
                let child = folder.appendingPathComponent(name)
                var own = stat()
                guard lstat(child.path, &own) == 0 else { continue }  // gone since the listing
                let isLink = (own.st_mode & S_IFMT) == S_IFLNK
                var target = own
                if isLink, stat(child.path, &target) != 0 {
                    failures.append(ImportFailure(file: child, reason: errno == ELOOP ? "a symbolic link loop" : "a broken symbolic link"))
                    continue
                }
                if (target.st_mode & S_IFMT) == S_IFDIR {
                    if recursive { enter(child, info: target, depth: depth + 1) }
                } else {
                    files.append(child)
                }
            }
        }
    }
}
