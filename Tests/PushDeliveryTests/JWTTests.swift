import BuzzTesting
import Foundation
import XCTest
@testable import APNsStandIn
@testable import PushDelivery

/// The provider token: ES256 over `header.claims`, raw R‖S, base64url without padding; checked
/// with the stand-in's verifier, which shares no code with the signer.
final class JWTTests: XCTestCase {
    private func parts(_ jwt: String) -> [String] {
        jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    func testTokenHasES256HeaderKidIssAndIatClaims() throws {
        let signer = try ES256Signer(privateKeyPEM: Fixtures.key.privateKeyPEM)
        let issued = Date(timeIntervalSince1970: 1_700_000_123.9)
        let token = try ProviderTokenCache.Token.make(signer: signer, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", now: issued)
        let pieces = parts(token.jwt)
        XCTAssertEqual(pieces.count, 3)
        for piece in pieces {
            XCTAssertFalse(piece.contains("="), "base64url must not be padded")
            XCTAssertFalse(piece.contains("+") || piece.contains("/"), "base64url alphabet only")
        }
        let header = try XCTUnwrap(Data(base64URLEncoded: pieces[0]))
        let claims = try XCTUnwrap(Data(base64URLEncoded: pieces[1]))
        XCTAssertEqual(String(decoding: header, as: UTF8.self), #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        XCTAssertEqual(String(decoding: claims, as: UTF8.self), #"{"iss":"DEF123GHIJ","iat":1700000123}"#)
        XCTAssertEqual(token.issuedAt, Date(timeIntervalSince1970: 1_700_000_123))
        XCTAssertEqual(token.bearer, "bearer " + token.jwt)
    }

    func testSignatureIsRawRS64BytesAndVerifiesIndependently() throws {
        let signer = try ES256Signer(privateKeyPEM: Fixtures.key.privateKeyPEM)
        let publicKey = try ECKey.publicKey(pem: Fixtures.key.publicKeyPEM)
        let other = try ECKey.publicKey(pem: try ProviderKeyPair.generate().publicKeyPEM)
        // 200 signatures: about 3 of them have an r or s shorter than 32 bytes, which must be padded.
        for index in 0..<200 {
            let message = Data("header.claims-\(index)".utf8)
            let signature = try signer.sign(message)
            XCTAssertEqual(signature.count, 64)
            XCTAssertTrue(publicKey.verifyES256(message: message, signature: signature), "signature \(index)")
            XCTAssertFalse(other.verifyES256(message: message, signature: signature))
            XCTAssertFalse(publicKey.verifyES256(message: message + Data([0]), signature: signature))
        }
    }

    func testStandInVerifierAcceptsSignedTokenAndRejectsTampering() throws {
        let verifier = try ProviderTokenVerifier(keys: [Fixtures.key.keyID: Fixtures.key.verificationKey])
        let signer = try ES256Signer(privateKeyPEM: Fixtures.key.privateKeyPEM)
        let now = Date()
        let token = try ProviderTokenCache.Token.make(signer: signer, keyID: Fixtures.key.keyID, teamID: Fixtures.key.teamID,
                                           now: now)
        XCTAssertEqual(verifier.verify(token.jwt, now: now, maxAge: 3600, futureTolerance: 600),
                       .valid(keyID: Fixtures.key.keyID))
        XCTAssertEqual(verifier.verify(token.jwt, now: now.addingTimeInterval(3601), maxAge: 3600, futureTolerance: 600),
                       .expired)
        var pieces = parts(token.jwt)
        var signature = try XCTUnwrap(Data(base64URLEncoded: pieces[2]))
        signature[10] ^= 0x01
        pieces[2] = signature.base64URLEncodedString
        guard case .invalid = verifier.verify(pieces.joined(separator: "."), now: now, maxAge: 3600, futureTolerance: 600)
        else { return XCTFail("a tampered signature must be invalid") }
        let forged = try Fixtures.jwt(iss: "OTHERTEAM1")
        guard case .invalid = verifier.verify(forged, now: now, maxAge: 3600, futureTolerance: 600)
        else { return XCTFail("a token from another team must be invalid") }
        let wrongKey = try Fixtures.jwt(key: try ProviderKeyPair.generate(keyID: Fixtures.key.keyID))
        guard case .invalid = verifier.verify(wrongKey, now: now, maxAge: 3600, futureTolerance: 600)
        else { return XCTFail("a token signed by another key must be invalid") }
    }

    func testDERSignatureWithShortIntegersBecomesPaddedRawRS() throws {
        // SEQUENCE { INTEGER 1, INTEGER 0x00FF (a leading zero keeps it positive) }
        let der: [UInt8] = [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0xFF]
        let raw = try ES256Signer.rawSignature(fromDER: der)
        XCTAssertEqual(raw.count, 64)
        XCTAssertEqual(Array(raw[0..<31]), Array(repeating: 0, count: 31))
        XCTAssertEqual(raw[31], 1)
        XCTAssertEqual(Array(raw[32..<63]), Array(repeating: 0, count: 31))
        XCTAssertEqual(raw[63], 0xFF)
        XCTAssertThrowsError(try ES256Signer.rawSignature(fromDER: [0x30, 0x01]))
        // And back: the stand-in's conversion produces the DER OpenSSL verifies.
        XCTAssertEqual(ECKey.derSignature(fromRaw: raw), [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0xFF])
    }

    func testBase64URLHasNoPaddingAndRoundTrips() {
        XCTAssertEqual(Data([0xFB, 0xFF]).base64URLEncodedString, "-_8")
        XCTAssertEqual(Data("a".utf8).base64URLEncodedString, "YQ")
        for length in 0..<40 {
            let data = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) })
            let text = data.base64URLEncodedString
            XCTAssertFalse(text.contains("="))
            XCTAssertEqual(Data(base64URLEncoded: text), data)
            XCTAssertEqual(ProviderTokenVerifier.base64URL(Substring(text)), length == 0 ? nil : data)
        }
        XCTAssertNil(Data(base64URLEncoded: "a+b/"))
        XCTAssertNil(ProviderTokenVerifier.base64URL("YQ=="), "JWS forbids padding")
    }

    func testTokenCacheReusesThenRefreshesWithinTwentyToSixtyMinutes() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let signer = try ES256Signer(privateKeyPEM: Fixtures.key.privateKeyPEM)
        let cache = ProviderTokenCache(signer: signer, keyID: "K", teamID: "T", refreshInterval: 50 * 60,
                                       clock: clock)
        let first = try cache.current()
        clock.advance(by: 19 * 60)
        XCTAssertEqual(try cache.current(), first)
        clock.advance(by: 30 * 60)
        XCTAssertEqual(try cache.current(), first, "49 minutes: still reused")
        clock.advance(by: 2 * 60)
        let second = try cache.current()
        XCTAssertNotEqual(second, first, "51 minutes: refreshed")
        XCTAssertEqual(second.issuedAt, clock.now)
        XCTAssertEqual(cache.mintedCount, 2)
        // ExpiredProviderToken for the current token renews it; for an older one it does not.
        XCTAssertEqual(try cache.renew(replacing: first), second)
        let third = try cache.renew(replacing: second)
        XCTAssertNotEqual(third, second)
        XCTAssertEqual(cache.mintedCount, 3)

        let eager = ProviderTokenCache(signer: signer, keyID: "K", teamID: "T", refreshInterval: 60, clock: clock)
        let kept = try eager.current()
        clock.advance(by: 19 * 60)
        XCTAssertEqual(try eager.current(), kept, "intervals below 20 minutes are raised to 20")
        let lazy = ProviderTokenCache(signer: signer, keyID: "K", teamID: "T", refreshInterval: 3 * 3600,
                                      clock: clock)
        let old = try lazy.current()
        clock.advance(by: 56 * 60)
        XCTAssertNotEqual(try lazy.current(), old, "intervals above 55 minutes are lowered to 55")
    }

    func testSignerRefusesKeysThatAreNotP256() throws {
        XCTAssertThrowsError(try ES256Signer(privateKeyPEM: "not a key")) { error in
            XCTAssertEqual((error as? PushDeliveryError)?.code, .invalidKey)
        }
        XCTAssertThrowsError(try ES256Signer(privateKeyPEM: Fixtures.key.publicKeyPEM)) { error in
            XCTAssertEqual((error as? PushDeliveryError)?.code, .invalidKey)
        }
        XCTAssertThrowsError(try ProviderTokenCache.Token.make(signer: try ES256Signer(privateKeyPEM: Fixtures.key.privateKeyPEM),
                                                    keyID: "bad\"kid", teamID: "T", now: Date()))
    }
}
