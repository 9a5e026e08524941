import BuzzEngine
import BuzzKitWire
import Foundation

/// `buzzkit moment`: computes a local window's moment the way a run would, for people
/// planning workflows and for tests.
///
/// ```
/// buzzkit moment --time 07:00 --timezone Europe/Berlin --from 2026-03-28T20:00:00Z \
///                [--quiet-hours 22:00-08:00] [--policy shift|ignore]
/// ```
///
/// Prints `{"moment": …, "fireAt": {…}, "shiftedByQuietHours": …}` (the `expect` shape of
/// `Tests/BuzzEngineTests/Fixtures/moments.json`). `--timezone` is both the wait's zone and the subscriber's zone.
/// `--policy` defaults to `shift` and only matters with `--quiet-hours`. Options may also be
/// written `--name=value`.
public enum MomentCommand {
    /// The usage text printed by `--help`.
    public static let usage = """
        usage: buzzkit moment --time HH:MM[:SS] --timezone IANA-ZONE --from RFC3339-INSTANT \
        [--quiet-hours HH:MM-HH:MM] [--policy shift|ignore]
        """

    /// Runs the command on its arguments (without the `moment` word itself).
    ///
    /// - Returns: the JSON line and exit code 0; the usage and 0 for `--help`; or a one-line
    ///   error (`error: --time: expected HH:MM or HH:MM:SS, got "25:00"`) and exit code 2,
    ///   which the caller prints to standard error. The output has no trailing newline.
    public static func run(_ args: [String]) -> (output: String, exitCode: Int32) {
        if args.contains("--help") || args.contains("-h") { return (usage, 0) }
        do {
            let arguments = try MomentArguments(parsing: args)
            let result = Moments.localWindow(
                time: arguments.time, zone: arguments.zone, subscriberZone: arguments.zone,
                waitBegins: arguments.from, quietHours: arguments.quietHours, policy: arguments.policy)
            return (result.jsonText, 0)
        } catch {
            return ("error: \(error.description)", 2)
        }
    }
}
