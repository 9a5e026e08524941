import CLibPQ
import Foundation

extension PostgresConnection {
    /// The one place libpq results become typed errors.
    func check(_ result: OpaquePointer?, statement: String?) throws -> OpaquePointer {
        guard let handle else { throw PostgresError(.closed, "the connection is closed", statement: statement) }
        guard let result else {
            let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw PostgresError(PQstatus(handle) == CONNECTION_OK ? .server : .connectionLost,
                                message.isEmpty ? "no result from the server" : message, statement: statement)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_COPY_IN, PGRES_COPY_OUT:
            return result
        default:
            let sqlState = field(result, "C")
            // PostgreSQL's DETAIL is left out: it quotes row values (subscriber ids, tokens,
            // properties), and errors reach logs and dead-letter headers.
            var message = field(result, "M") ?? String(cString: PQresultErrorMessage(result))
            if let hint = field(result, "H") { message += " Hint: \(hint)" }
            PQclear(result)
            if PQstatus(handle) != CONNECTION_OK {
                // Prepared statements die with the session.
                prepared.removeAll()
                throw PostgresError(.connectionLost, message.trimmingCharacters(in: .whitespacesAndNewlines),
                                    sqlState: sqlState, statement: statement)
            }
            let error = PostgresError(.server, message.trimmingCharacters(in: .whitespacesAndNewlines), sqlState: sqlState, statement: statement)
            if error.isReadOnlyServer { retired = true }
            throw error
        }
    }

    private func field(_ result: OpaquePointer, _ code: Character) -> String? {
        guard let pointer = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
        return String(cString: pointer)
    }
}
