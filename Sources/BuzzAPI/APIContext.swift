import AMQPClient
import BuzzServer
import Foundation
import HTTPServer

/// What the API's handlers share.
struct APIContext: Sendable {
    let directory: Directory
    let commands: RunCommands
    let publisher: AMQPPublisher
    let topology: Topology
    let metrics: Metrics
    let clock: any Clock
    let authenticator: Authenticator
    let depths: QueueDepths

    /// Authenticates the request (401 on failure).
    func principal(_ request: HTTPRequest) async throws -> Principal {
        try await authenticator.authenticate(request, now: clock.now())
    }

    /// Runs blocking storage work off the concurrency pool; storage outages become 503.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await Blocking.run(body)
        } catch let error as HTTPError {
            throw error
        } catch let error as ServerError where error.code == .invalidInput {
            throw HTTPError.badRequest(error.message, field: error.field)
        } catch {
            throw HTTPError(status: 503, code: "storage_unavailable", message: "PostgreSQL did not answer; nothing was changed. Retry shortly.")
        }
    }
}
