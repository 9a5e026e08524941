import Foundation

/// A store that keeps each key in its own JSON file inside a directory, written atomically
/// (write to a temporary file, then rename).
///
/// On iOS (and Apple's other phone-like systems) the files are written with
/// `completeFileProtectionUntilFirstUserAuthentication` whatever the app's default data
/// protection: a silent push wakes the app while the phone is locked, and under `complete` the
/// files could not be read then (Apple, "Encrypting Your App's Files"). The directory is excluded
/// from backups (`isExcludedFromBackup`): the state belongs to this device and its push token.
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
            #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            var excluded = directory
            var values = URLResourceValues()
            values.isExcludedFromBackup = true
            try excluded.setResourceValues(values)
            #endif
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
                try data.write(to: url, options: Self.writeOptions)
            } else if FileManager.default.fileExists(atPath: url.path) {
                try FileManager.default.removeItem(at: url)
            }
        }
    }

    /// Atomic, and on iOS readable from the phone's first unlock on.
    static var writeOptions: Data.WritingOptions {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return [.atomic, .completeFileProtectionUntilFirstUserAuthentication]
        #else
        return .atomic
        #endif
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
