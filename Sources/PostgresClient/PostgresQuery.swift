/// A SQL statement whose interpolated values become `$n` bind parameters.
///
/// ```swift
/// let q: PostgresQuery = "SELECT * FROM runs WHERE id = \(runId) AND tenant_id = \(tenant)"
/// // sql: "SELECT * FROM runs WHERE id = $1 AND tenant_id = $2", binds: [runId, tenant]
/// ```
/// Raw text can only enter through ``PostgresQuery/init(unsafeSQL:)`` or
/// ``StringInterpolation/appendInterpolation(unsafeRaw:)``, whose names say what they are.
public struct PostgresQuery: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The statement text with `$n` placeholders.
    public private(set) var sql: String
    /// Parameter values (`nil` is SQL NULL).
    public private(set) var binds: [PostgresBind?]
    /// Planned with its values at every run instead of once per connection (see
    /// ``plannedEachTime``).
    public private(set) var plansEachTime = false

    /// Raw SQL with no parameters. Never build this from input.
    public init(unsafeSQL: String) {
        self.sql = unsafeSQL
        self.binds = []
    }

    public init(stringLiteral value: String) {
        self.sql = value
        self.binds = []
    }

    public init(stringInterpolation: StringInterpolation) {
        self.sql = stringInterpolation.sql
        self.binds = stringInterpolation.binds
    }

    /// This query, planned at every run with its values rather than prepared once per
    /// connection. For statements on a table whose size swings between empty and large (a
    /// queue): PostgreSQL turns a prepared statement into a generic plan after five runs, and a
    /// plan made while the table was empty (a sequential scan comparing each row with every
    /// element of an array parameter) stays until the table's statistics next change, while
    /// the table fills. Planned with its values, an `= ANY(array)` is hashed and a join can
    /// look each value up by index.
    public func plannedEachTime() -> PostgresQuery {
        var copy = self
        copy.plansEachTime = true
        return copy
    }

    /// Appends another query, renumbering its placeholders.
    public mutating func append(_ other: PostgresQuery) {
        var interpolation = StringInterpolation(literalCapacity: other.sql.count, interpolationCount: 0)
        interpolation.sql = sql
        interpolation.binds = binds
        interpolation.appendInterpolation(other)
        sql = interpolation.sql
        binds = interpolation.binds
    }

    public var description: String { sql }

    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        @usableFromInline var sql: String
        @usableFromInline var binds: [PostgresBind?]

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// A value: becomes the next `$n` parameter. Inlinable, so the caller's module
        /// specializes it for the value's type (an array's text is then written without
        /// generic dispatch per element: unspecialized, that was 6 % of a worker's CPU).
        @inlinable
        public mutating func appendInterpolation<T: PostgresBindable>(_ value: T) {
            binds.append(value.postgresBind)
            sql += "$\(binds.count)"
        }

        /// An optional value: `nil` binds SQL NULL.
        public mutating func appendInterpolation<T: PostgresBindable>(_ value: T?) {
            binds.append(value?.postgresBind)
            sql += "$\(binds.count)"
        }

        /// A nested query fragment: its text is spliced in and its placeholders renumbered.
        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            let offset = binds.count
            binds.append(contentsOf: fragment.binds)
            sql += offset == 0 ? fragment.sql : Self.renumber(fragment.sql, by: offset)
        }

        /// Raw SQL text (an identifier chosen by code, never by input).
        public mutating func appendInterpolation(unsafeRaw text: String) {
            sql += text
        }

        static func renumber(_ sql: String, by offset: Int) -> String {
            var out = ""
            out.reserveCapacity(sql.utf8.count + 8)
            var iterator = Array(sql.unicodeScalars)[...]
            while let scalar = iterator.popFirst() {
                guard scalar == "$", let first = iterator.first, first.properties.numericType != nil,
                      ("0"..."9").contains(first) else {
                    out.unicodeScalars.append(scalar)
                    continue
                }
                var digits = ""
                while let d = iterator.first, ("0"..."9").contains(d) {
                    digits.unicodeScalars.append(d)
                    iterator.removeFirst()
                }
                out += "$\((Int(digits) ?? 0) + offset)"
            }
            return out
        }
    }
}
