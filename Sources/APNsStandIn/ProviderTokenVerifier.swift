import Foundation

/// Checks provider tokens as APNs does: a compact JWS with header `{"alg":"ES256","kid":…}`
/// and claims `{"iss":…,"iat":…}`, whose ES256 signature verifies against the public key
/// registered for `kid`, whose `iss` is that key's team, and whose `iat` is neither older than
/// the maximum age (`ExpiredProviderToken`) nor too far in the future.
///
/// Verified tokens are remembered (APNs, too, validates a token once per connection), so a
/// reused token costs a dictionary lookup and an age check, not a signature verification.
final class ProviderTokenVerifier: @unchecked Sendable {
    /// The verdict on one token.
    enum Verdict: Equatable {
        /// Valid; the token's key id.
        case valid(keyID: String)
        /// Valid signature but `iat` older than the maximum age: 403 `ExpiredProviderToken`.
        case expired
        /// Anything else: 403 `InvalidProviderToken`, with why (for logs).
        case invalid(String)
    }

    private struct Key {
        let teamID: String?
        let key: ECKey
    }

    private let keys: [String: Key]
    private let lock = NSLock()
    private var verified: [String: (keyID: String, issuedAt: Date)] = [:]

    /// Reads the public keys.
    init(keys: [String: APNsStandInConfiguration.VerificationKey]) throws {
        var parsed: [String: Key] = [:]
        for (keyID, entry) in keys {
            parsed[keyID] = Key(teamID: entry.teamID, key: try ECKey.publicKey(pem: entry.publicKeyPEM))
        }
        self.keys = parsed
    }

    /// Judges `jwt` at `now`.
    func verify(_ jwt: String, now: Date, maxAge: TimeInterval, futureTolerance: TimeInterval) -> Verdict {
        let cached = lock.withLock { verified[jwt] }
        if let cached {
            return judgeAge(keyID: cached.keyID, issuedAt: cached.issuedAt, now: now, maxAge: maxAge,
                            futureTolerance: futureTolerance)
        }
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard jwt.utf8.count <= 4096, parts.count == 3 else { return .invalid("not a compact JWS") }
        guard let headerData = Self.base64URL(parts[0]), let claimsData = Self.base64URL(parts[1]),
              let signature = Self.base64URL(parts[2]) else { return .invalid("not base64url") }
        guard let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any] else {
            return .invalid("header or claims are not JSON objects")
        }
        guard header["alg"] as? String == "ES256" else { return .invalid("alg is not ES256") }
        guard let keyID = header["kid"] as? String, let key = keys[keyID] else { return .invalid("unknown kid") }
        guard let issuer = claims["iss"] as? String, !issuer.isEmpty else { return .invalid("no iss") }
        if let team = key.teamID, team != issuer { return .invalid("iss is not the key's team") }
        guard let iatNumber = claims["iat"] as? NSNumber, !(claims["iat"] is Bool) else { return .invalid("no iat") }
        let iat = iatNumber.doubleValue
        guard iat.isFinite, iat >= 0, iat.rounded() == iat else { return .invalid("iat is not whole seconds") }
        guard signature.count == 64 else { return .invalid("signature is not 64 bytes (R||S)") }
        let signingInput = Data(jwt.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.key.verifyES256(message: signingInput, signature: signature) else {
            return .invalid("signature does not verify")
        }
        let issuedAt = Date(timeIntervalSince1970: iat)
        lock.withLock {
            if verified.count >= 256 { verified.removeAll() }
            verified[jwt] = (keyID, issuedAt)
        }
        return judgeAge(keyID: keyID, issuedAt: issuedAt, now: now, maxAge: maxAge, futureTolerance: futureTolerance)
    }

    private func judgeAge(keyID: String, issuedAt: Date, now: Date, maxAge: TimeInterval,
                          futureTolerance: TimeInterval) -> Verdict {
        let age = now.timeIntervalSince(issuedAt)
        if age > maxAge { return .expired }
        if age < -futureTolerance { return .invalid("iat is in the future") }
        return .valid(keyID: keyID)
    }

    /// Strict JWS base64url: the URL-safe alphabet only, no padding, nothing else. (The
    /// stand-in is Apple's side and shares no code with the client on purpose, so an encoding
    /// bug in the client cannot be hidden by the same bug here.)
    static func base64URL(_ text: Substring) -> Data? {
        guard !text.isEmpty, text.utf8.count % 4 != 1, text.utf8.allSatisfy({ byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F
        }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
