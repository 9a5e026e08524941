import BuzzServerCore
import Foundation

/// One numbered SQL migration (`NNNN_name.sql` in the module's `Migrations` resources).
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    /// The migrations shipped with this build, in version order.
    public static func bundled() throws -> [Migration] {
        guard let directory = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw ServerError(.configuration, "the Migrations resource folder is missing from the build")
        }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        return try parse(files.map { ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8)) })
    }

    /// Turns `(fileName, contents)` pairs into sorted migrations, refusing bad names and
    /// duplicate versions.
    public static func parse(_ files: [(name: String, contents: String)]) throws -> [Migration] {
        var migrations: [Migration] = []
        for (file, contents) in files where file.hasSuffix(".sql") {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]), version > 0 else {
                throw ServerError(.configuration, "migration file \(file) must be named NNNN_description.sql")
            }
            migrations.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: contents))
        }
        migrations.sort { $0.version < $1.version }
        for (a, b) in zip(migrations, migrations.dropFirst()) where a.version == b.version {
            throw ServerError(.configuration, "two migrations share version \(a.version): \(a.name) and \(b.name)")
        }
        return migrations
    }
}
