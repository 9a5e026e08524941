import COpenSSL
import Foundation

/// Random UUIDs from OpenSSL's generator, for the identifiers the hot paths mint: run ids
/// (time-ordered, version 7), broker message ids, `apns-id`s, request ids (version 4).
///
/// On Linux, Foundation's `UUID()` opens, reads and closes `/dev/urandom` for every identifier:
/// about 5 µs on an idle core here, and three system calls that contend with everything else
/// when both cores are busy (4–7 % of a worker's samples at 3,500 windows a second, in the
/// kernel's path lookups). OpenSSL's generator is seeded once per thread and is as secure,
/// no system call. Each call of it still costs 2–3 µs (OpenSSL 3 finds its generator through
/// its provider tables and locks it: 5 % of the API's CPU at 6,400 events a second, two ids a
/// request), so the bytes are drawn 4 KiB at a time and handed out 16 at a time.
public enum RandomIdentifier {
    /// A fresh random UUID (RFC 9562 version 4).
    public static func uuid() -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let filled = withUnsafeMutableBytes(of: &bytes) { pool.fill($0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        guard filled else { return UUID() }  // OpenSSL could not seed: the system's way
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // variant 10
        return UUID(uuid: bytes)
    }

    /// A UUID that sorts by the time it was made (RFC 9562 version 7): the first 48 bits are
    /// `at` in Unix milliseconds, the other 74 (all but the version and variant) random, so it
    /// is as unguessable as ``uuid()`` for all practical purposes while ids minted together
    /// sit together in every B-tree keyed by them. Run ids use it: a run's id leads the keys
    /// of its plans, deliveries, timers and decisions, so each window's rows land on the
    /// right-hand pages of those indexes (hot in memory, split once and full) instead of on
    /// random pages across them.
    public static func timeOrdered(at: Date) -> UUID {
        var id = uuid().uuid
        let millis = UInt64(max(0, (at.timeIntervalSince1970 * 1000).rounded(.down)))
        id.0 = UInt8(truncatingIfNeeded: millis >> 40); id.1 = UInt8(truncatingIfNeeded: millis >> 32)
        id.2 = UInt8(truncatingIfNeeded: millis >> 24); id.3 = UInt8(truncatingIfNeeded: millis >> 16)
        id.4 = UInt8(truncatingIfNeeded: millis >> 8); id.5 = UInt8(truncatingIfNeeded: millis)
        id.6 = (id.6 & 0x0F) | 0x70  // version 7
        return UUID(uuid: id)
    }

    /// ``uuid()`` as lower-case text.
    public static func text() -> String { uuid().uuidString.lowercased() }

    private static let pool = RandomPool()
}

/// Random bytes drawn from OpenSSL 4 KiB at a time, handed out 16 at a time under a lock. A
/// byte is handed out once and wiped from the pool as it goes.
private final class RandomPool: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = [UInt8](repeating: 0, count: 4096)
    private var next = 4096

    /// Copies 16 fresh random bytes to `target`; false when OpenSSL cannot give any.
    func fill(_ target: UnsafeMutablePointer<UInt8>) -> Bool {
        lock.lock(); defer { lock.unlock() }
        if next + 16 > bytes.count {
            guard bytes.withUnsafeMutableBufferPointer({ RAND_bytes($0.baseAddress!, Int32($0.count)) }) == 1 else { return false }
            next = 0
        }
        bytes.withUnsafeMutableBufferPointer { buffer in
            target.update(from: buffer.baseAddress! + next, count: 16)
            (buffer.baseAddress! + next).update(repeating: 0, count: 16)
        }
        next += 16
        return true
    }
}
