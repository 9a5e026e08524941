import BuzzEngine
import BuzzKitWire
import Foundation

/// Moment computations: `Moments.localWindow` (next occurrence, quiet hours, `fireAt`) over
/// a mix of zones, times, start instants and quiet-hours settings.
enum MomentBench {
    struct Case {
        let time: WallClockTime
        let zone: ZoneRules
        let start: Date
        let quietHours: QuietHours?
        let policy: QuietHours.Policy
    }

    static func cases() -> [Case] {
        let zones = ["Europe/Berlin", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham",
                     "UTC", "America/St_Johns", "Asia/Tokyo", "America/Los_Angeles", "Europe/London"]
            .compactMap { ZoneRules(identifier: $0) }
        let quiet = QuietHours(start: WallClockTime(hour: 22, minute: 0)!, end: WallClockTime(hour: 8, minute: 0)!)
        var generator = SplitMix64(seed: 42)
        return (0..<4096).map { index in
            Case(time: WallClockTime(hour: Int(generator.next() % 24), minute: Int(generator.next() % 4) * 15)!,
                 zone: zones[index % zones.count],
                 start: Date(timeIntervalSince1970: 1_767_225_600 + Double(generator.next() % (365 * 86_400))),
                 quietHours: index % 2 == 0 ? quiet : nil,
                 policy: index % 4 == 0 ? .ignore : .shift)
        }
    }

    static func measure(seconds: Double) -> BenchResult {
        let all = cases()
        return BenchResult.run("moments", seconds: seconds) {
            var checksum = 0
            for item in all {
                let result = Moments.localWindow(time: item.time, zone: item.zone, subscriberZone: item.zone,
                                                 waitBegins: item.start, quietHours: item.quietHours, policy: item.policy)
                checksum &+= result.fireAt.hour &+ Int(result.moment.timeIntervalSince1970)
            }
            return (all.count, checksum)
        }
    }
}
