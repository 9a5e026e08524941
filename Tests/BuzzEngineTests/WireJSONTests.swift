import BuzzKitWire
import Foundation
import XCTest

final class WireJSONTests: XCTestCase {
    private func roundTrip(_ text: String) throws -> String {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func testIntegersStayIntegers() throws {
        XCTAssertEqual(try roundTrip(#"{"a":3,"b":-7,"c":9007199254740993}"#), #"{"a":3,"b":-7,"c":9007199254740993}"#)
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"n":3}"#.utf8))
        XCTAssertEqual(value["n"], .number(.int(3)))
    }

    func testDoublesAndOtherValuesRoundTrip() throws {
        let text = #"{"a":0.5,"b":true,"c":null,"d":"x\"y","e":[1,"two",false],"f":{"g":{}}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        XCTAssertEqual(value["a"], .number(.double(0.5)))
        XCTAssertEqual(value["b"], true)
        XCTAssertEqual(value["c"], .null)
        XCTAssertEqual(value["e"], [1, "two", false])
        let again = try JSONDecoder().decode(JSONValue.self, from: Data(try roundTrip(text).utf8))
        XCTAssertEqual(again, value)
    }

    func testNumbersCompareByValue() {
        XCTAssertEqual(JSONValue.number(.int(1)), .number(.double(1.0)))
        XCTAssertNotEqual(JSONValue.number(.int(1)), .number(.double(1.5)))
        XCTAssertEqual(Set([JSONValue.number(.int(2)), .number(.double(2.0))]).count, 1)
        XCTAssertNotEqual(JSONNumber.int(9_007_199_254_740_993), .double(9_007_199_254_740_992))
    }

    func testWriterOutputIsDeterministicAndEscaped() {
        let value: JSONValue = ["b": "line\nnext \"q\" \\ \u{01}", "a": [1, 2.5, nil], "c": "ü"]
        XCTAssertEqual(value.jsonText, #"{"a":[1,2.5,null],"b":"line\nnext \"q\" \\ \u0001","c":"ü"}"#)
        let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(value.jsonText.utf8))
        XCTAssertEqual(decoded, value)
    }

    func testWriterIntegers() {
        let value: JSONValue = [.number(.int(-7)), 0, 9, 10, 2026, .number(.int(Int64.min)), .number(.int(Int64.max))]
        XCTAssertEqual(value.jsonText, "[-7,0,9,10,2026,-9223372036854775808,9223372036854775807]")
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("n"); writer.int(-12_345)
        writer.member("b", false)
        writer.key("s"); writer.optionalString(nil)
        writer.endObject()
        XCTAssertEqual(writer.string, #"{"n":-12345,"b":false,"s":null}"#)
    }

    func testPathLookup() {
        let value: JSONValue = ["workout": ["id": "w1", "sets": [["reps": 5]]]]
        XCTAssertEqual(value.value(at: ["workout", "id"]), "w1")
        XCTAssertEqual(value.value(at: ["workout", "sets", "0", "reps"]), 5)
        XCTAssertNil(value.value(at: ["workout", "sets", "1"]))
        XCTAssertNil(value.value(at: ["workout", "id", "x"]))
    }

    func testRFC3339ParsesAndFormats() {
        XCTAssertEqual(RFC3339.parse("2026-11-30T09:00:00Z")?.timeIntervalSince1970, 1_796_029_200)
        XCTAssertEqual(RFC3339.parse("2026-11-30T10:30:00+01:30")?.timeIntervalSince1970, 1_796_029_200)
        XCTAssertEqual(RFC3339.parse("2026-11-30t09:00:00.250z")?.timeIntervalSince1970, 1_796_029_200.25)
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 1_796_029_200)), "2026-11-30T09:00:00Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 1_796_029_200.5)), "2026-11-30T09:00:00.500Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: -1)), "1969-12-31T23:59:59Z")
        for bad in ["2026-11-30", "2026-02-30T09:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T09:00:00", "2026-11-30T09:00:00+0100",
                    "2026-11-30T09:00:00Zjunk", "2026-11-30T09:00:00.Z"] {
            XCTAssertNil(RFC3339.parse(bad), bad)
        }
    }

    func testRFC3339AgreesWithFoundationOverRandomInstants() {
        var generator = SplitMix64(seed: 7)
        let formatter = ISO8601DateFormatter()
        for _ in 0..<2000 {
            let seconds = Double(Int64.random(in: -2_000_000_000...7_000_000_000, using: &generator))
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(RFC3339.format(date), formatter.string(from: date))
            XCTAssertEqual(RFC3339.parse(formatter.string(from: date)), date)
        }
        // With milliseconds (what run states and messages carry), years 1600-9999 (before the
        // Gregorian reform Foundation counts Julian days; RFC 3339 is proleptic Gregorian).
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for _ in 0..<2000 {
            let millis = Int64.random(in: -11_676_096_000_000...253_402_300_799_999, using: &generator)
            guard millis % 1000 != 0 else { continue }
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            XCTAssertEqual(RFC3339.format(date), fractional.string(from: date))
        }
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: -62_135_596_800)), "0001-01-01T00:00:00Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 253_402_300_799.999)), "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 253_402_300_800)), "10000-01-01T00:00:00Z", "five digits past 9999")
    }

    func testCivilDateRoundTrips() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            XCTAssertEqual(CivilDate(daysSinceEpoch: days).daysSinceEpoch, days)
        }
        XCTAssertEqual(CivilDate(daysSinceEpoch: 0), CivilDate(year: 1970, month: 1, day: 1))
        XCTAssertEqual(CivilDate(year: 2024, month: 2, day: 29).daysSinceEpoch + 1, CivilDate(year: 2024, month: 3, day: 1).daysSinceEpoch)
    }

    func testEventWireForm() throws {
        let text = #"{"id":"e1","event":"workout.completed","subscriberId":"u_123","properties":{"n":1},"timestamp":"2026-11-30T09:00:00Z"}"#
        let event = try JSONDecoder().decode(BuzzEvent.self, from: Data(text.utf8))
        XCTAssertEqual(event.id, "e1")
        XCTAssertEqual(event.properties["n"], 1)
        XCTAssertEqual(event.timestamp, instant("2026-11-30T09:00:00Z"))
        let encoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(event))
        XCTAssertEqual(encoded["timestamp"], "2026-11-30T09:00:00Z")
        XCTAssertEqual(encoded, try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
        let minimal = try JSONDecoder().decode(BuzzEvent.self, from: Data(#"{"event":"x","subscriberId":"u","timestamp":"2026-11-30T09:00:00Z"}"#.utf8))
        XCTAssertNil(minimal.id)
        XCTAssertEqual(minimal.properties, [:])
        XCTAssertThrowsError(try JSONDecoder().decode(BuzzEvent.self, from: Data(#"{"event":"x","subscriberId":"u","timestamp":"yesterday"}"#.utf8)))
    }

    /// A summary from a server that wrote fewer members (or `null`s) still reads; what it
    /// writes always has every member, instants as RFC 3339 whatever the encoder's strategy.
    func testRunSummaryReadsMissingMembersAndWritesEveryOne() throws {
        let sparse = #"{"id":"r","workflow":"w","subscriberId":"u","dryRun":false,"status":"running","#
            + #""steps":[{"name":"nudge","status":"waiting","startedAt":"2026-11-30T09:00:00Z","finishedAt":null}]}"#
        let summary = try JSONDecoder().decode(RunSummary.self, from: Data(sparse.utf8))
        XCTAssertNil(summary.cancelled)
        XCTAssertNil(summary.steps[0].finishedAt)
        XCTAssertNil(summary.steps[0].local)
        XCTAssertEqual(summary.steps[0].deliveries, [])
        XCTAssertEqual(summary.steps[0].startedAt, instant("2026-11-30T09:00:00Z"))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let written = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(summary))
        XCTAssertEqual(written["cancelled"], .null)
        XCTAssertEqual(written["opened"], .null)
        guard case .array(let steps)? = written["steps"] else { return XCTFail("steps: \(written)") }
        XCTAssertEqual(steps[0]["startedAt"], "2026-11-30T09:00:00Z")
        XCTAssertEqual(steps[0]["finishedAt"], .null)
        XCTAssertEqual(steps[0]["local"], .null)
        XCTAssertEqual(steps[0]["actions"], [])
        XCTAssertEqual(steps[0]["deliveries"], [])
        XCTAssertEqual(steps[0]["opened"], .null)
        let badInstant = sparse.replacingOccurrences(of: "2026-11-30T09:00:00Z", with: "tomorrow")
        XCTAssertThrowsError(try JSONDecoder().decode(RunSummary.self, from: Data(badInstant.utf8)))
    }
}

final class BuzzEventWriterTests: XCTestCase {
    func testWrittenEventDecodesToTheSameEvent() throws {
        let event = BuzzEvent(id: "e-1", event: "workout.completed", subscriberId: "u_\"1\"",
                              properties: ["n": 3, "nested": ["a": [1, "two", nil, true]], "text": "ünï\ncode"],
                              timestamp: Date(timeIntervalSince1970: 1_796_029_200.25))
        let decoded = try JSONDecoder().decode(BuzzEvent.self, from: event.jsonData)
        XCTAssertEqual(decoded, event)
        let withoutId = BuzzEvent(event: "a", subscriberId: "b", timestamp: Date(timeIntervalSince1970: 0))
        XCTAssertFalse(String(decoding: withoutId.jsonData, as: UTF8.self).contains("\"id\""))
    }
}

final class JSONParserTests: XCTestCase {
    func testParsesLikeTheCodablePath() throws {
        let samples = [
            #"{"a":1,"b":[true,false,null],"c":{"d":"x\"y\\z\n\u00e9\ud83d\ude00"},"e":-0.5,"f":1e3,"g":12345678901234,"h":3.0}"#,
            "[]", "{}", "\"\"", "0", "-12", "[[[[]]]]", " { \"k\" : [ 1 , 2 ] } ",
        ]
        for sample in samples {
            let data = Data(sample.utf8)
            XCTAssertEqual(try JSONParser.parse(data), try JSONDecoder().decode(JSONValue.self, from: data), sample)
        }
    }

    func testRefusesWhatRFC8259Refuses() {
        for bad in ["", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "tru", "nul", "\"\\x\"", "\"\\ud800\"", "{\"a\" 1}",
                    "[1] 2", "\"a\nb\"", "NaN", "1e", "{a:1}", "// c\n1"] {
            XCTAssertThrowsError(try JSONParser.parse(Data(bad.utf8)), bad)
        }
        XCTAssertThrowsError(try JSONParser.parse(Data([0x22, 0xff, 0x22])))
        XCTAssertThrowsError(try JSONParser.parse(Data(String(repeating: "[", count: 600).utf8)))
    }

    func testRandomMutationsAgreeWithFoundationOnValidity() {
        var generator = SystemRandomNumberGenerator()
        let seed = Array(#"{"events":[{"event":"a.b","subscriberId":"u","properties":{"x":[1,2.5,"s",null,true]}}]}"#.utf8)
        for _ in 0..<2000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let i = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[i] = Array("{}[],:\"0a-.e \\".utf8).randomElement(using: &generator)!
                case 1: bytes.remove(at: i)
                default: bytes.insert(Array("{}[],:\"1".utf8).randomElement(using: &generator)!, at: i)
                }
                if bytes.isEmpty { bytes = [0x31] }
            }
            let data = Data(bytes)
            let ours = try? JSONParser.parse(data)
            let theirs = try? JSONDecoder().decode(JSONValue.self, from: data)
            let text = String(decoding: bytes, as: UTF8.self)
            if ours != theirs {
                // Foundation's decoder accepts trailing commas; RFC 8259 (and this parser) does not.
                let compact = text.filter { !$0.isWhitespace }
                XCTAssertTrue(ours == nil && (compact.contains(",]") || compact.contains(",}")), text)
            }
        }
    }
}
