import BuzzEngine
import BuzzKitWire
import Foundation

/// The parsed arguments of ``MomentCommand``.
struct MomentArguments {
    let time: WallClockTime
    let zone: ZoneRules
    let from: Date
    let quietHours: QuietHours?
    let policy: QuietHours.Policy

    private static let known: Set<String> = ["--time", "--timezone", "--from", "--quiet-hours", "--policy"]

    init(parsing args: [String]) throws(EngineError) {
        var values: [String: String] = [:]
        var index = 0
        while index < args.count {
            let arg = args[index]
            var name = arg
            var value: String?
            if let equals = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<equals])
                value = String(arg[arg.index(after: equals)...])
            }
            guard MomentArguments.known.contains(name) else {
                throw EngineError(code: .invalidArgument, path: arg,
                                  message: "unknown argument; expected \(MomentArguments.known.sorted().joined(separator: ", "))")
            }
            if value == nil {
                index += 1
                guard index < args.count, !args[index].hasPrefix("--") else {
                    throw EngineError(code: .invalidArgument, path: name, message: "needs a value")
                }
                value = args[index]
            }
            guard values[name] == nil else {
                throw EngineError(code: .invalidArgument, path: name, message: "given more than once")
            }
            values[name] = value
            index += 1
        }
        for required in ["--time", "--timezone", "--from"] where values[required] == nil {
            throw EngineError(code: .invalidArgument, path: required, message: "is required; \(MomentCommand.usage)")
        }
        let timeText = values["--time"]!, zoneText = values["--timezone"]!, fromText = values["--from"]!
        guard let time = WallClockTime(parsing: timeText) else {
            throw EngineError(code: .invalidTime, path: "--time", message: "expected HH:MM or HH:MM:SS, got \"\(timeText)\"")
        }
        guard let zone = ZoneRules(identifier: zoneText) else {
            throw EngineError(code: .unknownTimeZone, path: "--timezone",
                              message: "unknown time zone \"\(zoneText)\"; use an IANA name such as Europe/Berlin")
        }
        guard let from = RFC3339.parse(fromText) else {
            throw EngineError(code: .invalidArgument, path: "--from",
                              message: "expected an RFC 3339 instant such as 2026-03-28T20:00:00Z, got \"\(fromText)\"")
        }
        var quietHours: QuietHours?
        if let text = values["--quiet-hours"] {
            do {
                quietHours = try QuietHours.parse(text)
            } catch {
                throw EngineError(code: error.code, path: "--quiet-hours", message: error.message)
            }
        }
        var policy = QuietHours.Policy.shift
        if let text = values["--policy"] {
            guard let parsed = QuietHours.Policy(rawValue: text) else {
                throw EngineError(code: .invalidArgument, path: "--policy", message: "expected shift or ignore, got \"\(text)\"")
            }
            policy = parsed
        }
        self.time = time
        self.zone = zone
        self.from = from
        self.quietHours = quietHours
        self.policy = policy
    }
}
