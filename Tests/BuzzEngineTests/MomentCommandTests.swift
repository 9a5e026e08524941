import BuzzEngineCLI
import Foundation
import XCTest

final class MomentCommandTests: XCTestCase {
    func testPrintsTheVectorShape() {
        let (output, code) = MomentCommand.run(["--time", "07:00", "--timezone", "Europe/Berlin", "--from", "2026-03-28T20:00:00Z"])
        XCTAssertEqual(code, 0)
        XCTAssertEqual(output, #"{"moment":"2026-03-29T05:00:00Z","fireAt":{"year":2026,"month":3,"day":29,"hour":7,"minute":0,"second":0},"shiftedByQuietHours":false}"#)
    }

    func testQuietHoursAndPolicyAndEqualsForm() {
        let shifted = MomentCommand.run(["--time=23:00", "--timezone=America/New_York", "--from=2026-11-30T09:00:00Z",
                                         "--quiet-hours=22:00-08:00"])
        XCTAssertEqual(shifted.exitCode, 0)
        XCTAssertTrue(shifted.output.contains(#""moment":"2026-12-01T13:00:00Z""#), shifted.output)
        XCTAssertTrue(shifted.output.hasSuffix(#""shiftedByQuietHours":true}"#), shifted.output)
        let ignored = MomentCommand.run(["--time", "23:00", "--timezone", "America/New_York", "--from", "2026-11-30T09:00:00Z",
                                         "--quiet-hours", "22:00-08:00", "--policy", "ignore"])
        XCTAssertTrue(ignored.output.contains(#""moment":"2026-12-01T04:00:00Z""#), ignored.output)
    }

    func testBadArgumentsGiveOneLineAndExitCode2() {
        let base = ["--time", "07:00", "--timezone", "Europe/Berlin", "--from", "2026-03-28T20:00:00Z"]
        let cases: [([String], String)] = [
            (["--time", "25:00", "--timezone", "Europe/Berlin", "--from", "2026-03-28T20:00:00Z"], "--time"),
            (["--time", "07:00", "--timezone", "Europe/Berln", "--from", "2026-03-28T20:00:00Z"], "--timezone"),
            (["--time", "07:00", "--timezone", "Europe/Berlin", "--from", "tomorrow"], "--from"),
            (base + ["--quiet-hours", "22-08"], "--quiet-hours"),
            (base + ["--quiet-hours", "08:00-08:00"], "--quiet-hours"),
            (base + ["--policy", "skip"], "--policy"),
            (base + ["--colour", "red"], "--colour"),
            (base + ["--time", "08:00"], "--time"),
            (["--time", "07:00", "--timezone", "Europe/Berlin"], "--from"),
            (["--time"], "--time"),
            ([], "--time"),
        ]
        for (args, mention) in cases {
            let (output, code) = MomentCommand.run(args)
            XCTAssertEqual(code, 2, "\(args)")
            XCTAssertTrue(output.hasPrefix("error: "), output)
            XCTAssertTrue(output.contains(mention), "\(output) should mention \(mention)")
            XCTAssertFalse(output.contains("\n"), output)
        }
    }

    func testHelp() {
        let (output, code) = MomentCommand.run(["--help"])
        XCTAssertEqual(code, 0)
        XCTAssertTrue(output.hasPrefix("usage: buzzkit moment"))
    }
}
