import CLibPQ

/// The rows a statement returned. Values are copied out of libpq when the result is read,
/// so rows stay valid after the connection goes back to the pool.
public struct PostgresRows: Sendable, RandomAccessCollection {
    /// Column names in order.
    public let columns: [String]
    let cells: [String?]
    /// Rows changed by an INSERT/UPDATE/DELETE (0 for others).
    public let affectedRows: Int
    let statement: String

    public var startIndex: Int { 0 }
    public var endIndex: Int { columns.isEmpty ? 0 : cells.count / columns.count }

    public subscript(position: Int) -> PostgresRow {
        PostgresRow(rows: self, index: position)
    }

    init(result: OpaquePointer, statement: String) {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = []
        columns.reserveCapacity(columnCount)
        for c in 0..<columnCount {
            columns.append(PQfname(result, Int32(c)).map { String(cString: $0) } ?? "?column?")
        }
        var cells: [String?] = []
        cells.reserveCapacity(rowCount * columnCount)
        for r in 0..<rowCount {
            for c in 0..<columnCount {
                if PQgetisnull(result, Int32(r), Int32(c)) == 1 {
                    cells.append(nil)
                } else {
                    cells.append(String(cString: PQgetvalue(result, Int32(r), Int32(c))))
                }
            }
        }
        self.columns = columns
        self.cells = cells
        self.affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
        self.statement = statement
    }

    func columnIndex(_ name: String) throws -> Int {
        guard let index = columns.firstIndex(of: name) else {
            throw PostgresError(.decoding, "no column \"\(name)\" in the result (columns: \(columns.joined(separator: ", ")))",
                                statement: statement)
        }
        return index
    }
}

/// One row of ``PostgresRows``.
public struct PostgresRow: Sendable {
    let rows: PostgresRows
    let index: Int

    /// Decodes the named column. Decode nullable columns as `Optional`.
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        let c = try rows.columnIndex(column)
        return try T.decode(postgresText: rows.cells[index * rows.columns.count + c], column: column)
    }

    /// Decodes the column at `position` (0-based).
    public func decode<T: PostgresDecodable>(at position: Int, as type: T.Type = T.self) throws -> T {
        guard position >= 0 && position < rows.columns.count else {
            throw PostgresError(.decoding, "column index \(position) out of range (\(rows.columns.count) columns)", statement: rows.statement)
        }
        return try T.decode(postgresText: rows.cells[index * rows.columns.count + position], column: rows.columns[position])
    }

    /// The raw text of a column, nil for NULL.
    public func text(_ column: String) throws -> String? {
        rows.cells[index * rows.columns.count + (try rows.columnIndex(column))]
    }
}
