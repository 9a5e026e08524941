import AMQPClient
import BuzzCrypto
import BuzzKitWire
import BuzzServer
import PostgresClient
import Foundation
import HTTPServer

/// `POST /v1/events` and `POST /v1/events/bulk`: one event or `{"events": [...]}` (at most
/// 1,000), answered `202` only after every event is safe: devices' acknowledgments and
/// releases recorded in PostgreSQL (so they count from now on), every other event confirmed
/// by RabbitMQ, and cancelling events' marks recorded where PostgreSQL answers (so they
/// count from now on too).
///
/// `/v1/events/bulk` (secret key only) sends campaigns through the bulk lane, which yields to
/// interactive work. On `/v1/events`, a tenant's server events beyond its interactive
/// allowance at this process (``LaneSettings/interactiveEventsPerSecond``) are accepted the
/// same way but handled in the bulk lane, so one tenant's flood does not queue ahead of every
/// other tenant's events. Devices' events count against the same allowance (besides each
/// subscriber's own limit in events, ``Authenticator/admitEvents(_:from:subscriberId:now:)``); their
/// acknowledgments and releases are recorded at once and take no lane.
enum EventRoutes {
    static let maxBatch = 1000

    static func register(_ router: inout Router, _ api: APIContext) {
        router.add("POST", "/v1/events") { request in
            try await accept(request, api: api, bulk: false)
        }
        router.add("POST", "/v1/events/bulk") { request in
            try await accept(request, api: api, bulk: true)
        }
    }

    private static func accept(_ request: HTTPRequest, api: APIContext, bulk: Bool) async throws -> HTTPResponse {
        let principal = try await api.principal(request)
        if bulk { try principal.requireServer() }
        // A device body sent without Content-Length is held to the same limit once read.
        if !principal.isServer, request.body.count > api.authenticator.limits.deviceBodyMaxBytes {
            throw HTTPError(status: 413, code: "body_too_large",
                            message: "a device request's body is at most \(api.authenticator.limits.deviceBodyMaxBytes) bytes; send fewer events at a time")
        }
        let items = try batch(JSONBody(request))
        let now = api.clock.now
        try api.authenticator.checkDeviceBatch(items.count, from: principal)
        // A device's event ids are deduplicated in its subscriber's own space (Topology.dedupeKey).
        let origin: [String: AMQPFieldValue] = principal.isServer ? [:] : [Topology.originHeader: .string(Topology.deviceOrigin)]
        var events: [BuzzEvent] = []
        var deviceWords: [BuzzEvent] = []
        events.reserveCapacity(items.count)
        for (value, path) in items {
            let event = try EventInput.parse(value, path: path, now: now)
            try principal.authorize(subscriberId: event.subscriberId, now: now)
            if RunCommands.isDeviceWord(event) {
                deviceWords.append(event)
            } else {
                events.append(event)
            }
        }
        // Every event of a device's request is its token's subscriber's (checked above).
        if let subscriberId = (events.first ?? deviceWords.first)?.subscriberId {
            try api.authenticator.admitEvents(items.count, from: principal, subscriberId: subscriberId, now: now)
        }
        // A device's events are checked before they are published; its acknowledgments and
        // releases with the other requests' recorded beside them (``DeviceWordBatcher``), one
        // query a transaction, not one a request.
        try await api.refuseErased(principal, subscriberIds: events.map(\.subscriberId))
        // The first `interactive` events (in order) take the interactive lane, the rest bulk.
        var interactive = bulk ? 0 : events.count
        if !bulk, !events.isEmpty {
            interactive = api.laneAdmission.take(principal.tenant.id, upTo: events.count, perSecond: api.lanes.interactiveEventsPerSecond,
                                                 burst: api.lanes.interactiveEventBurst, now: now)
            if interactive < events.count {
                api.metrics.increment("buzzkit_events_demoted_total", by: Double(events.count - interactive),
                                      help: "Unmarked events past their tenant's interactive allowance, handled in the bulk lane")
            }
        }
        // The message id is an event's deduplication key when it has no id of its own: time-ordered,
        // so the trigger stage's record of processed event ids grows at its right-hand edge.
        let messages = events.enumerated().map { index, event in
            AMQPMessage(exchange: api.topology.triggerExchange(index < interactive ? .interactive : .bulk),
                        routingKey: Topology.routingKey(tenantId: principal.tenant.id, event: event.event),
                        body: event.jsonData, headers: origin, messageId: RandomIdentifier.timeOrdered(at: now).lowercasedText)
        }
        if !messages.isEmpty {
            do {
                try await api.broker.publishBatch(messages)
            } catch {
                api.log.warning("RabbitMQ did not confirm a batch of events", ["events": "\(messages.count)", "cause": "\(error)"])
                var unavailable = HTTPError(status: 503, code: "broker_unavailable",
                                            message: "RabbitMQ did not confirm the events, so none is guaranteed accepted; retry (events with an id are deduplicated)")
                unavailable.retryAfter = 1
                throw unavailable
            }
        }
        // A cancelling event counts from its 202 too: its mark is recorded, pending until the
        // trigger stage handles it (``AcceptedCancels``). RabbitMQ has confirmed the events, so
        // PostgreSQL failing here refuses nothing: the trigger stage records the marks when it
        // handles them.
        if api.commands.acceptedCancels.mayRecord(events, tenantId: principal.tenant.id, now: now) {
            let (commands, tenantId, accepted) = (api.commands, principal.tenant.id, events)
            do {
                let marked = try await BlockingPool.shared.run { try commands.acceptedCancels.record(accepted, tenantId: tenantId, context: commands.context) }
                if marked > 0 {
                    api.metrics.increment("buzzkit_cancels_accepted_total", by: Double(marked),
                                          help: "Cancelling events whose mark the API recorded as it accepted them")
                }
            } catch {
                api.log.warning("could not record accepted cancelling events; the trigger stage records them when it handles them",
                                ["events": "\(messages.count)", "cause": "\(error)"])
            }
        }
        // Acknowledgments and releases are recorded last, just before the answer: one
        // accepted before a window's moment counts at that moment, however far behind
        // ack-ingest is, and one the client was told failed (503) was not recorded, so a
        // phone that withdraws its copy after a 503 is covered by the fallback.
        // An acknowledgment that came after its window's fallback was decided is not counted;
        // the answer names its plan (`"late"`), so the phone withdraws its copy if it still can.
        // Likewise one of a plan whose run was cancelled (`"cancelled"`): the cancel push may
        // never reach the phone, so the answer is its last chance to drop the plan.
        var late: Set<String> = [], cancelled: Set<String> = []
        if !deviceWords.isEmpty {
            let (commands, tenantId, words) = (api.commands, principal.tenant.id, deviceWords)
            let erasures = principal.isServer ? nil : api.directory
            let answer = try await api.blocking { try commands.recordDeviceWords(tenantId: tenantId, words, refusingErasedIn: erasures) }
            if let erased = answer.erasedSubscriber { throw APIContext.erased(erased) }
            (late, cancelled) = (answer.late, answer.cancelled)
        }
        let accepted = messages.count + deviceWords.count
        api.metrics.increment("buzzkit_events_accepted_total", ["lane": bulk ? "bulk" : "interactive"], by: Double(accepted),
                              help: "Events accepted by the API (recorded, or confirmed by RabbitMQ), by the route's lane")
        guard !late.isEmpty || !cancelled.isEmpty else { return .json(["accepted": accepted], status: 202) }
        return .json(AcceptedEvents(accepted: accepted, late: late.isEmpty ? nil : late.sorted(),
                                    cancelled: cancelled.isEmpty ? nil : cancelled.sorted()), status: 202)
    }

    /// The body's events with their JSON paths: one event, or `{"events": [...]}`.
    private static func batch(_ body: JSONBody) throws -> [(JSONValue, String)] {
        guard case .object(let members) = body.value, let batch = members["events"] else { return [(body.value, "")] }
        guard members.count == 1 else {
            throw HTTPError.badRequest("a batch is {\"events\": [...]} with nothing else", code: "unknown_field", field: members.keys.sorted().first { $0 != "events" })
        }
        guard case .array(let events) = batch else {
            throw HTTPError.badRequest("events must be an array, got \(batch.typeDescription)", code: "invalid_type", field: "events")
        }
        guard !events.isEmpty else { throw HTTPError.badRequest("events is empty", code: "invalid_value", field: "events") }
        guard events.count <= maxBatch else {
            throw HTTPError(status: 413, code: "too_many_events", message: "a batch holds at most \(maxBatch) events, got \(events.count); split it", field: "events")
        }
        return events.enumerated().map { ($1, "events[\($0)]") }
    }
}
