import Foundation
import XCTest
import BuzzKit

/// An app with types of its own named like BuzzKit's (a `Configuration` is common) names
/// BuzzKit's as `BuzzKit.X`; without the aliases `BuzzKit.Configuration` does not compile,
/// since `BuzzKit` is the enum, not only the module.
private struct Configuration { var theme = "dark" }

final class TypeNamesTests: XCTestCase {
    func testAnAppsOwnConfigurationAndBuzzKitsLiveSideBySide() throws {
        let mine = Configuration()
        var theirs = BuzzKit.Configuration(apiBaseURL: URL(string: "https://api.buzzkit.test/")!, publishableKey: "pk_t_s",
                                           pushTopic: "com.example.gym")
        theirs.retryPolicy = BuzzKit.RetryPolicy(initialDelay: 1, multiplier: 2, maximumDelay: 30, jitter: 0)
        let store: any BuzzKit.KeyValueStore = BuzzKit.InMemoryKeyValueStore()
        try store.setData(Data("{}".utf8), forKey: "k")
        let error: BuzzKit.Error = BuzzKit.Error(.storage, context: "c", message: "m")
        XCTAssertEqual(mine.theme, "dark")
        XCTAssertEqual(theirs.pushTopic, "com.example.gym")
        XCTAssertEqual(error.code, .storage)
        XCTAssertEqual(try store.data(forKey: "k"), Data("{}".utf8))
        let authorization: BuzzKit.NotificationAuthorization = .provisional
        XCTAssertEqual(authorization.rawValue, "provisional")
    }
}
