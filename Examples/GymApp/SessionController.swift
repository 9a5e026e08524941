import BuzzKit
import Foundation

/// Where the example talks to. Replace with your own.
enum GymBackend {
    /// The app's own backend: sign-in, and `POST /buzzkit-token`.
    static let baseURL = URL(string: "https://api.gym.example")!
    /// The BuzzKit API (`buzzkit api`).
    static let buzzKitAPI = URL(string: "https://buzzkit.gym.example")!
    /// The tenant's publishable key from `buzzkit tenant create NAME --json`. The secret key
    /// and the signing secret stay on the backend.
    static let publishableKey = "pk_replace_me"
}

/// The app's own session, and the BuzzKit identity that follows it: `BuzzKit.login` after the
/// app's sign-in, `BuzzKit.logout` on sign-out.
@MainActor
final class SessionController {
    static let shared = SessionController()

    /// What the app's backend returns at sign-in.
    struct Session: Codable, Sendable {
        var userId: String
        var accessToken: String
    }

    private(set) var session: Session?
    // An example keeps the session in UserDefaults; a real app keeps it in the Keychain with
    // kSecAttrAccessibleAfterFirstUnlock, so a launch by a silent push can still read it.
    private let storageKey = "gym.session"

    private init() {
        session = UserDefaults.standard.data(forKey: storageKey).flatMap { try? JSONDecoder().decode(Session.self, from: $0) }
    }

    var isSignedIn: Bool { session != nil }

    /// The subscriber and token provider for `BuzzKit.configure` at launch, when someone is
    /// signed in.
    func buzzKitIdentity() -> (subscriberId: String, tokenProvider: SubscriberTokenProvider)? {
        guard let session else { return nil }
        return (session.userId, Self.tokenProvider(accessToken: session.accessToken))
    }

    /// The app's own sign-in, then BuzzKit's: from now on this phone acknowledges plans, tracks
    /// events and is registered for this subscriber.
    func signIn(email: String, password: String) async throws {
        let session = try await GymAPI.signIn(email: email, password: password)
        self.session = session
        UserDefaults.standard.set(try JSONEncoder().encode(session), forKey: storageKey)
        try await BuzzKit.login(subscriberId: session.userId,
                                subscriberToken: Self.tokenProvider(accessToken: session.accessToken))
    }

    /// BuzzKit's logout first (removing this device on the server may need a fresh token from
    /// the provider, so the app's session must still be valid), then the app's own sign-out.
    func signOut() async {
        await BuzzKit.logout()
        if let session { try? await GymAPI.signOut(accessToken: session.accessToken) }
        session = nil
        UserDefaults.standard.removeObject(forKey: storageKey)
    }

    /// Subscriber tokens from the app's backend. The SDK calls this whenever it needs a fresh
    /// one (a minute before the last one expires, or after a 401).
    static func tokenProvider(accessToken: String) -> SubscriberTokenProvider {
        SubscriberTokenProvider {
            try await GymAPI.buzzKitToken(accessToken: accessToken)
        }
    }
}

/// The app's backend.
enum GymAPI {
    struct Failure: Error {
        var status: Int
    }

    private struct TokenResponse: Decodable {
        var token: String
    }

    /// `POST /buzzkit-token`: the backend checks the app's session and answers
    /// `{"token": "v1.<expiresAt>.<hex HMAC-SHA256(signingSecret, "<userId>.<expiresAt>")>"}`
    /// for the signed-in user.
    static func buzzKitToken(accessToken: String) async throws -> String {
        let data = try await post("buzzkit-token", body: [:], accessToken: accessToken)
        return try JSONDecoder().decode(TokenResponse.self, from: data).token
    }

    static func signIn(email: String, password: String) async throws -> SessionController.Session {
        let data = try await post("sessions", body: ["email": email, "password": password], accessToken: nil)
        return try JSONDecoder().decode(SessionController.Session.self, from: data)
    }

    static func signOut(accessToken: String) async throws {
        _ = try await post("sessions/end", body: [:], accessToken: accessToken)
    }

    private static func post(_ path: String, body: [String: String], accessToken: String?) async throws -> Data {
        var request = URLRequest(url: GymBackend.baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let accessToken { request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization") }
        request.httpBody = try JSONEncoder().encode(body)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw Failure(status: status) }
        return data
    }
}
