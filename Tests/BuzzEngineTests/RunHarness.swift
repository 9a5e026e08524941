import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

/// Drives one run and checks the invariants after every input.
struct RunHarness {
    var state: RunState
    var now: Date
    var timers: [RunTimer] = []
    var plans: [String: Int] = [:]
    var fallbacks: [String: Int] = [:]
    var cancelSends = 0
    var lastGeneration = 0

    mutating func apply(_ input: RunInput, file: StaticString = #filePath, line: UInt = #line) {
        // The scheduler delivers a timer (or a redelivery of it) once it is due.
        if case .timerFired(let timer) = input { now = max(now, timer.at) }
        let wasFinal = state.status.isFinal
        let wasCancelled = state.status == .cancelled
        let actions = state.handle(input, now: now)
        let context = "\(state.runId) \(input)"
        if state.context.dryRun || !state.context.hasSubscriber {
            XCTAssertTrue(actions.sends.isEmpty, "a send in a dry run or without a subscriber: \(context)", file: file, line: line)
        }
        if wasFinal {
            XCTAssertTrue(actions.isEmpty, "actions after the run ended: \(context)", file: file, line: line)
        }
        for action in actions {
            switch action {
            case .scheduleTimer(let timer):
                XCTAssertGreaterThan(timer.generation, lastGeneration, file: file, line: line)
                XCTAssertGreaterThan(timer.at, now, context, file: file, line: line)
                lastGeneration = timer.generation
                timers.append(timer)
            case .sendLocalPlan(let plan):
                plans[plan.localId, default: 0] += 1
                XCTAssertGreaterThan(plan.moment, now, file: file, line: line)
                XCTAssertLessThanOrEqual(plan.body.utf8.count, 4096, file: file, line: line)
            case .sendFallback(let fallback):
                fallbacks[fallback.localId ?? "", default: 0] += 1
                XCTAssertLessThanOrEqual(fallback.idempotencyKey.utf8.count, 64, file: file, line: line)
            case .sendCancel:
                cancelSends += 1
                XCTAssertEqual(state.status, .cancelled, file: file, line: line)
                XCTAssertFalse(wasCancelled, file: file, line: line)
            case .sendPush(let push):
                XCTAssertFalse(state.status == .cancelled && !wasCancelled, "a push in the cancelling call: \(context)", file: file, line: line)
                XCTAssertLessThanOrEqual(push.idempotencyKey.utf8.count, 64, file: file, line: line)
            case .cancelTimers, .statusChanged:
                break
            }
        }
        XCTAssertTrue(plans.values.allSatisfy { $0 == 1 }, "a plan sent twice: \(context)", file: file, line: line)
        XCTAssertTrue(fallbacks.values.allSatisfy { $0 == 1 }, "more than one fallback for a window: \(context)", file: file, line: line)
        XCTAssertLessThanOrEqual(cancelSends, 1, file: file, line: line)
        XCTAssertEqual(state.status == .waiting, state.pendingTimer != nil, context, file: file, line: line)
        for step in state.steps where step.status != .cancelled && step.status != .failed {
            // Nothing that waits finishes before it is due.
            if let due = step.dueAt, let finished = step.finishedAt, step.local?.fallback?.reason != RunSummary.LocalWindow.Fallback.momentPassed {
                XCTAssertGreaterThanOrEqual(finished, due, "\(step.name) finished early: \(context)", file: file, line: line)
            }
        }
        if state.status.isFinal { XCTAssertNil(state.pendingTimer, file: file, line: line) }
        for window in state.steps.compactMap(\.local) {
            XCTAssertFalse(window.acknowledged && window.releaseReason != nil, "acknowledged and released at once: \(context)", file: file, line: line)
            XCTAssertEqual(window.acknowledged, window.acknowledgedAt != nil, context, file: file, line: line)
        }
    }

    func checkStorage(file: StaticString = #filePath, line: UInt = #line) {
        do {
            let decoded = try JSONDecoder().decode(RunState.self, from: JSONEncoder().encode(state))
            XCTAssertEqual(decoded.summary, state.summary, file: file, line: line)
            XCTAssertEqual(decoded.pendingTimer, state.pendingTimer, file: file, line: line)
            XCTAssertEqual(decoded.steps, state.steps, file: file, line: line)
            // Codable goes through the hand-written stored form: it must round-trip both ways, with
            // and without the workflow snapshot (RunStorageTests pin the form's members).
            for includingWorkflow in [true, false] {
                let encoder = JSONEncoder()
                encoder.userInfo[RunState.omitWorkflowKey] = !includingWorkflow
                let codable = try encoder.encode(state)
                var writer = JSONWriter()
                state.write(to: &writer, includingWorkflow: includingWorkflow)
                XCTAssertEqual(try JSONParser.parse(Data(writer.bytes)), try JSONParser.parse(codable), file: file, line: line)
                XCTAssertEqual(try RunState(json: try JSONParser.parse(codable), workflow: state.workflow), state, file: file, line: line)
                let decoder = JSONDecoder()
                decoder.userInfo[RunState.workflowKey] = state.workflow
                XCTAssertEqual(try decoder.decode(RunState.self, from: Data(writer.bytes)), state, file: file, line: line)
                // The compact form holds the same state in fewer bytes (RunCompactStorageTests pin it).
                var compact = JSONWriter()
                state.write(to: &compact, includingWorkflow: includingWorkflow, form: .compact)
                XCTAssertEqual(try RunState(json: try JSONParser.parse(Data(compact.bytes)), workflow: state.workflow), state, file: file, line: line)
                XCTAssertLessThan(compact.bytes.count, writer.bytes.count, file: file, line: line)
            }
        } catch {
            XCTFail("storage round trip failed: \(error)", file: file, line: line)
        }
    }

    func checkFinal(file: StaticString = #filePath, line: UInt = #line) {
        for step in state.steps {
            guard let window = step.local else { continue }
            XCTAssertEqual(window.planSent, plans[window.localId] == 1, file: file, line: line)
            let sent = fallbacks[window.localId] == 1
            XCTAssertEqual(window.fallback?.sent ?? false, sent, file: file, line: line)
            if state.status == .completed {
                XCTAssertNotNil(window.fallback, "a window never decided", file: file, line: line)
            }
            if window.fallback?.sent == true { XCTAssertEqual(step.status, .fallbackSent, file: file, line: line) }
            if let released = window.releaseReason, window.fallback?.sent == true, step.status == .fallbackSent {
                XCTAssertEqual(window.fallback?.reason, released, "a released window's fallback says why", file: file, line: line)
            }
        }
        if cancelSends == 1 { XCTAssertTrue(state.planSent, file: file, line: line) }
        if state.status == .cancelled && state.planSent && state.context.sendsLive {
            XCTAssertEqual(cancelSends, 1, "a cancel after a plan must reach the devices", file: file, line: line)
        }
        XCTAssertFalse(state.steps.contains { $0.isOpen } && state.status.isFinal && state.status != .failed,
                       "an open step in an ended run", file: file, line: line)
    }

    func randomInput(using generator: inout SplitMix64) -> RunInput {
        let localIds = state.steps.compactMap { $0.local?.localId } + ["\(state.runId)/nope"]
        switch Int.random(in: 0..<12, using: &generator) {
        case 0, 1, 2:
            if let timer = timers.randomElement(using: &generator), Int.random(in: 0..<3, using: &generator) == 0 { return .timerFired(timer) }
            if let pending = state.pendingTimer { return .timerFired(pending) }
            return .start
        case 3:
            let localId = localIds.randomElement(using: &generator)!
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: return .acknowledged(localId: localId, messageId: nil)
            case 1: return .released(localId: localId, messageId: nil, reason: RunSummary.LocalWindow.Fallback.releasedByEveryDevice)
            default: return .released(localId: localId, messageId: nil, reason: RunSummary.LocalWindow.Fallback.noAcknowledgingDeviceHoldsIt)
            }
        case 4:
            let localId = localIds.randomElement(using: &generator)!
            return .event(Fixtures.event("$local.scheduled", ["localId": .string(localId),
                                                              "messageId": .string(PayloadBuilder.messageId(localId: localId))]))
        case 5:
            return .planDelivered(localId: localIds.randomElement(using: &generator)!, deviceCount: Int.random(in: 0...3, using: &generator))
        case 6:
            return Int.random(in: 0..<4, using: &generator) == 0 ? .cancel : .start
        case 7:
            return .event(Fixtures.event("workout.moved", ["workoutId": Bool.random(using: &generator) ? "w1" : "w2"]))
        case 8:
            return .event(Fixtures.event(Int.random(in: 0..<5, using: &generator) == 0 ? "workout.completed" : "app.opened"))
        case 9:
            return .event(Fixtures.event("workout.rated", ["stars": .number(.int(Int64.random(in: 0...5, using: &generator)))]))
        default:
            return .event(Fixtures.event("workout.completed", subscriber: "someone-else"))
        }
    }
}
