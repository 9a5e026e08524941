import COpenSSL
import Foundation

/// Random (version 4) UUIDs from OpenSSL's generator, for the identifiers the hot paths mint:
/// run ids, broker message ids, `apns-id`s, request ids.
///
/// On Linux, Foundation's `UUID()` opens, reads and closes `/dev/urandom` for every identifier:
/// about 5 µs on an idle core here, and three system calls that contend with everything else
/// when both cores are busy (4–7 % of a worker's samples at 3,500 windows a second, in the
/// kernel's path lookups). OpenSSL's generator is seeded once per thread and is as secure:
/// a fraction of a microsecond, no system call.
public enum RandomIdentifier {
    /// A fresh random UUID (RFC 9562 version 4).
    public static func uuid() -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let filled = withUnsafeMutableBytes(of: &bytes) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 16) }
        guard filled == 1 else { return UUID() }  // OpenSSL could not seed: the system's way
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // variant 10
        return UUID(uuid: bytes)
    }

    /// ``uuid()`` as lower-case text.
    public static func text() -> String { uuid().uuidString.lowercased() }
}
