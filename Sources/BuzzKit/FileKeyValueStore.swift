import Foundation

/// A store that keeps each key in its own JSON file inside a directory, written atomically
/// (write to a temporary file, then rename).
///
/// Keys are used as file names after replacing every character other than letters, digits,
/// `.`, `-` and `_` with `_`.
public final class FileKeyValueStore: KeyValueStore {
    /// The directory holding the files.
    public let directory: URL
    private let lock = Locked(())

    /// A store in `directory`, created (with intermediate directories) when missing.
    public init(directory: URL) throws {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BuzzKitError(.storage, context: "open \(directory.path)",
                               message: "the store directory could not be created: \(error)")
        }
    }

    /// The value under `key`, or `nil` when its file does not exist.
    public func data(forKey key: String) throws -> Data? {
        let url = fileURL(for: key)
        return try lock.withLock { _ in
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            return try Data(contentsOf: url)
        }
    }

    /// Writes the value under `key` atomically, or deletes its file for `nil`.
    public func setData(_ data: Data?, forKey key: String) throws {
        let url = fileURL(for: key)
        try lock.withLock { _ in
            if let data {
                try data.write(to: url, options: .atomic)
            } else if FileManager.default.fileExists(atPath: url.path) {
                try FileManager.default.removeItem(at: url)
            }
        }
    }

    /// The file that holds `key`.
    public func fileURL(for key: String) -> URL {
        let safe = String(key.unicodeScalars.map { scalar -> Character in
            let allowed = (scalar.properties.isAlphabetic && scalar.isASCII) || ("0"..."9").contains(scalar)
                || scalar == "." || scalar == "-" || scalar == "_"
            return allowed ? Character(scalar) : "_"
        })
        return directory.appendingPathComponent(safe + ".json")
    }
}
