import Foundation
import PostgresClient
import XCTest

/// A test on real PostgreSQL in a schema of its own, dropped at the end: ``open(_:migratedUpTo:)``
/// in `setUpWithError` makes it (migrated up to a version, all of them, or none) and a pool on it.
class SchemaTestCase: XCTestCase {
    var schema = ""
    var pool: PostgresPool!

    /// Makes the schema `<prefix>_<unique>` and the pool; migrates it up to `version` (nil: all
    /// the bundled migrations), unless `migrated` is false.
    func open(_ prefix: String, migrated: Bool = true, upTo version: Int? = nil) throws {
        schema = TestServices.uniqueName(prefix)
        pool = try TestServices.pool(schema: schema)
        if migrated { try TestServices.migrate(schema, upTo: version) }
    }

    override func tearDown() {
        pool?.close()
        if !schema.isEmpty { TestServices.dropSchema(schema) }
        super.tearDown()
    }
}
