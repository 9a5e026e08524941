import BuzzEngine
import BuzzKitWire
import Foundation

/// State-machine transitions: whole runs of the docs/contract.md §2 example workflow (a local window
/// plus a cancelOn rule with `where`), one `handle` call per transition: start (moment,
/// plan, timer), plan delivery count, an unrelated event, an acknowledgment (every other
/// run) and the fallback check (fallback push when unacknowledged). Every eighth run is
/// cancelled by a matching event instead of reaching its moment.
enum TransitionBench {
    static let definition: JSONValue = [
        "key": "leg-day",
        "trigger": ["event": "workout.scheduled"],
        "cancelOn": [["event": "workout.completed"],
                     ["event": "workout.moved", "where": ["workoutId": ["$trigger": "workoutId"]]]],
        "steps": [
            ["name": "morning-of", "waitUntil": ["time": "07:00", "timezone": "subscriber"]],
            ["name": "nudge", "send": ["deliver": "local", "title": "Leg day", "body": "{{trigger.time}} with {{trigger.coach}}.",
                                       "deepLink": "gym://workouts/legs", "data": ["workoutId": 7], "quietHours": "shift"]],
        ],
    ]

    static func measure(seconds: Double) -> BenchResult {
        let workflow = try! WorkflowDefinition.parse(definition)
        let now = Date(timeIntervalSince1970: 1_796_032_800)
        let trigger = BuzzEvent(event: "workout.scheduled", subscriberId: "u_123",
                                properties: ["workoutId": "w1", "time": "6:00", "coach": "Maya"], timestamp: now)
        let unrelated = BuzzEvent(event: "app.opened", subscriberId: "u_123", timestamp: now)
        let moved = BuzzEvent(event: "workout.moved", subscriberId: "u_123", properties: ["workoutId": "w1"], timestamp: now)
        let quiet = QuietHours(start: WallClockTime(hour: 22, minute: 0)!, end: WallClockTime(hour: 8, minute: 0)!)
        let templates = (0..<64).map { index in
            RunState(workflow: workflow, trigger: trigger,
                     context: RunContext(runId: "run-\(index)-0000-0000-0000-000000000000",
                                         subscriberTimeZone: "Europe/Berlin", quietHours: quiet))
        }
        return BenchResult.run("transitions", seconds: seconds) {
            var transitions = 0
            var checksum = 0
            for (index, template) in templates.enumerated() {
                var run = template
                let started = run.handle(.start, now: now)
                guard case .scheduleTimer(let timer)? = started.first(where: { if case .scheduleTimer = $0 { true } else { false } }),
                      let window = run.steps.last?.local else { fatalError("the bench workflow did not open a window") }
                _ = run.handle(.planDelivered(localId: window.localId, deviceCount: 2), now: now)
                _ = run.handle(.event(unrelated), now: now)
                transitions += 3
                if index % 8 == 7 {
                    checksum &+= run.handle(.event(moved), now: now).count
                    transitions += 1
                    continue
                }
                if index % 2 == 0 {
                    _ = run.handle(.acknowledged(localId: window.localId, messageId: window.plan.messageId), now: now)
                    transitions += 1
                }
                checksum &+= run.handle(.timerFired(timer), now: timer.at).count &+ run.revision
                transitions += 1
            }
            return (transitions, checksum)
        }
    }
}
