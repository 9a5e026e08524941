import COpenSSL
import Foundation

/// UUIDs derived from names (RFC 9562 version 8: the first 122 bits of SHA-256 of the parts),
/// for identifiers that must come out the same when the same work is done again.
///
/// The trigger stage names a run after its event (tenant, event id, workflow): a batch that
/// pushed a plan and then failed to commit (PostgreSQL lost mid-commit) starts the same run
/// when the event is redelivered, so the phone is handed the same plan (same local id and
/// message id) again, not a second reminder.
public enum DerivedIdentifier {
    /// The UUID named by `parts` (joined with a byte no text part holds, so ("ab", "c") and
    /// ("a", "bc") differ).
    public static func uuid(_ parts: String...) -> UUID {
        var input: [UInt8] = []
        for (index, part) in parts.enumerated() {
            if index > 0 { input.append(0) }
            input.append(contentsOf: part.utf8)
        }
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = SHA256(input, input.count, &digest)
        digest[6] = (digest[6] & 0x0F) | 0x80  // version 8
        digest[8] = (digest[8] & 0x3F) | 0x80  // variant 10
        return UUID(uuid: (digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                           digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]))
    }
}
