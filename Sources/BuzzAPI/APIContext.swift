import AMQPClient
import BuzzServer
import BuzzKitWire
import Foundation
import HTTPServer
import PostgresClient

/// What the API's handlers share.
struct APIContext: Sendable {
    let directory: any Directory
    let commands: RunCommands
    let broker: any Broker
    let topology: Topology
    let metrics: Metrics
    let clock: any Clock
    let authenticator: Authenticator
    /// Exact queue depths for `/metrics` (nil: none reported).
    let depths: (any QueueDepthSource)?
    /// A tenant's dead letters for the console (nil: none).
    let deadLetters: (any DeadLetterSource)?
    let log: Log
    /// Active devices a subscriber may have (`BUZZKIT_MAX_DEVICES_PER_SUBSCRIBER`).
    let maxDevicesPerSubscriber: Int
    /// Each tenant's interactive allowance for unmarked events (``LaneSettings``).
    var lanes: LaneSettings { commands.context.lanes }
    let laneAdmission = TokenBuckets(maxKeys: 100_000)

    /// Authenticates the request (401 on failure).
    func principal(_ request: HTTPRequest) async throws -> Principal {
        try await authenticator.authenticate(request, now: clock.now)
    }

    /// A device acting for an erased subscriber is refused `410 subscriber_erased` while the
    /// erasure's tombstone lasts, so its late traffic recreates nothing. Servers are not
    /// refused (a backend may know the person again and put the subscriber). If PostgreSQL
    /// cannot be asked, the request goes on: events need only RabbitMQ, and what it records
    /// checks its plan or subscriber anyway.
    func refuseErased(_ principal: Principal, subscriberIds: [String]) async throws {
        guard !principal.isServer, !subscriberIds.isEmpty else { return }
        let (directory, tenantId, ids) = (self.directory, principal.tenant.id, Array(Set(subscriberIds)))
        guard let erased = try? await BlockingPool.shared.run({ try directory.erasedSubscribers(tenantId: tenantId, ids: ids) }), let first = erased.sorted().first else { return }
        throw Self.erased(first)
    }

    /// The answer to a device acting for `subscriberId`, erased.
    static func erased(_ subscriberId: String) -> HTTPError {
        HTTPError(status: 410, code: "subscriber_erased",
                  message: "subscriber \(subscriberId) was erased; a device signed in as it sends nothing more (the app should sign out)")
    }

    /// Runs blocking storage work off the concurrency pool. Errors answer honestly, by the
    /// workers' own rule (``ServerError/outcome(of:)``): an outage (PostgreSQL unreachable, the
    /// pool exhausted, a serialization conflict) is `503` with `Retry-After`; a value PostgreSQL
    /// refuses or a refused input is `400`; anything else is a
    /// `500` whose cause is logged with the request's route, never sent to the client.
    func blocking<T: Sendable>(context: String = "storage", _ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await BlockingPool.shared.run(body)
        } catch let error as HTTPError {
            throw error
        } catch let error as ServerError {
            if error.httpError.status >= 500 { log.error("request failed", ["context": context, "cause": error.description]) }
            throw error.httpError
        } catch let error as PostgresError {
            // A 503 tells the client nothing was recorded (a phone then withdraws what it
            // acknowledged): not when the connection broke with COMMIT on its way.
            if error.commitOutcomeUnknown { throw Self.outcomeUnknown }
            switch ServerError.outcome(of: error) {
            case .outage:
                throw Self.storageUnavailable
            case .permanent where ServerError.isRefusedValue(error):
                throw HTTPError.badRequest("a value cannot be stored (\(error.sqlState ?? "")): check lengths, NUL characters and number ranges",
                                           code: "invalid_value")
            default:
                break
            }
            log.error("request failed", ["context": context, "cause": error.description])
            throw Self.internalError
        } catch {
            log.error("request failed", ["context": context, "cause": "\(error)"])
            throw Self.internalError
        }
    }

    static var storageUnavailable: HTTPError {
        var error = HTTPError(status: 503, code: "storage_unavailable", message: "PostgreSQL did not answer; nothing was changed. Retry shortly.")
        error.retryAfter = 1
        return error
    }

    static var outcomeUnknown: HTTPError {
        var error = HTTPError(status: 500, code: "outcome_unknown",
                              message: "PostgreSQL's connection broke while committing: the change may or may not be recorded. Retry; events with an id are deduplicated.")
        error.retryAfter = 1
        return error
    }

    static let internalError = HTTPError(status: 500, code: "internal", message: "the server failed to handle the request; the cause is logged")
}
