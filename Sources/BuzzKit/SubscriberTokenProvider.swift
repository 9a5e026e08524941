import Foundation

/// Where the SDK gets the subscriber token it sends as `X-BuzzKit-Subscriber-Token`.
///
/// The app's backend makes tokens `v1.<expiresAt unix seconds>.<hex HMAC>`. The SDK keeps the
/// last token until a minute before its `expiresAt` (or until the API answers 401) and then
/// asks again, so the closure may simply call the app's backend.
public struct SubscriberTokenProvider: Sendable {
    private let fetch: @Sendable () async throws -> String

    /// A provider that runs `fetch` whenever the SDK needs a fresh token.
    public init(_ fetch: @escaping @Sendable () async throws -> String) {
        self.fetch = fetch
    }

    /// A provider that always returns `token`.
    public static func fixed(_ token: String) -> SubscriberTokenProvider {
        SubscriberTokenProvider { token }
    }

    /// A fresh token from the app.
    public func token() async throws -> String {
        try await fetch()
    }

    /// The `expiresAt` of a `v1.<expiresAt>.<mac>` token, if it has that shape.
    public static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", let seconds = TimeInterval(parts[1]) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
