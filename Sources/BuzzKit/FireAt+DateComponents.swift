import BuzzKitWire
import Foundation

extension FireAt {
    /// The components of a one-shot calendar trigger for this floating wall clock: Gregorian
    /// (whatever calendar the person chose in Settings: Buddhist, Japanese and Hebrew
    /// calendars number years and months differently), and no time zone, so iOS fires at this
    /// wall clock in whatever zone the device is in when it comes (docs/contract.md §3). The calendar
    /// follows the device's zone (`autoupdatingCurrent`) rather than the zone at scheduling.
    public var floatingDateComponents: DateComponents {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = .autoupdatingCurrent
        var components = DateComponents()
        components.calendar = gregorian
        components.year = year
        components.month = month
        components.day = day
        components.hour = hour
        components.minute = minute
        components.second = second
        return components
    }

    /// The wall clock of floating Gregorian components (what a pending calendar trigger holds),
    /// or `nil` when a date part is missing.
    public init?(floating components: DateComponents) {
        guard let year = components.year, let month = components.month, let day = components.day else { return nil }
        self.init(year: year, month: month, day: day, hour: components.hour ?? 0,
                  minute: components.minute ?? 0, second: components.second ?? 0)
    }
}
