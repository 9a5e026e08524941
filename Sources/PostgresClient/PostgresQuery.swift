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
        var interpolation = stringInterpolation
        interpolation.settleBinary(before: nil)
        self.sql = interpolation.sql
        self.binds = interpolation.binds
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
        /// The last value bound in binary, until the SQL after it shows it cast to its own type.
        @usableFromInline var uncast: (index: Int, value: any PostgresBindable)?

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            settleBinary(before: literal)
            sql += literal
        }

        /// A binary array goes as such only where the statement casts it to its own type
        /// (`$3::uuid[]`): PostgreSQL then expects exactly that type. Anywhere else (no cast, or a
        /// cast of text to `uuid[]`) the server infers the type from the statement, so the
        /// value goes as text, which every type reads.
        @usableFromInline
        mutating func settleBinary(before literal: String?) {
            guard let (index, value) = uncast else { return }
            uncast = nil
            guard case .binary(let bytes)? = binds[index], let cast = PostgresBinaryArray.cast(of: bytes),
                  let literal, literal.hasPrefix(cast) else {
                binds[index] = .text(value.postgresText)
                return
            }
        }

        /// A value: becomes the next `$n` parameter. Inlinable, so the caller's module
        /// specializes it for the value's type (an array's text is then written without
        /// generic dispatch per element: unspecialized, that was 6 % of a worker's CPU).
        @inlinable
        public mutating func appendInterpolation<T: PostgresBindable>(_ value: T) {
            settleBinary(before: nil)
            let bind = value.postgresBind
            if case .binary = bind { uncast = (binds.count, value) }
            binds.append(bind)
            sql += "$\(binds.count)"
        }

        /// An optional value: `nil` binds SQL NULL.
        public mutating func appendInterpolation<T: PostgresBindable>(_ value: T?) {
            guard let value else {
                settleBinary(before: nil)
                binds.append(nil)
                sql += "$\(binds.count)"
                return
            }
            appendInterpolation(value)
        }

        /// A nested query fragment: its text is spliced in and its placeholders renumbered.
        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            settleBinary(before: nil)
            let offset = binds.count
            binds.append(contentsOf: fragment.binds)
            sql += offset == 0 ? fragment.sql : Self.renumber(fragment.sql, by: offset)
        }

        /// Raw SQL text (an identifier chosen by code, never by input).
        public mutating func appendInterpolation(unsafeRaw text: String) {
            settleBinary(before: text)
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
