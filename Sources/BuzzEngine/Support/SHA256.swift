/// SHA-256 (FIPS 180-4), for deterministic message ids and shortened idempotency keys.
/// The engine may not depend on CryptoKit or outside packages, and needs only digests of
/// short strings.
enum SHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The 32-byte digest of a message.
    static func digest<Bytes: Collection>(_ message: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
        let count = message.count
        let paddedCount = (count + 8 + 64) / 64 * 64
        var padded = [UInt8](repeating: 0, count: paddedCount)
        var position = 0
        for byte in message {
            padded[position] = byte
            position += 1
        }
        padded[count] = 0x80
        let bitLength = UInt64(count) * 8
        for index in 0..<8 { padded[paddedCount - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(index * 8)) }
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            k.withUnsafeBufferPointer { k in
                padded.withUnsafeBufferPointer { block in
                    for blockStart in stride(from: 0, to: block.count, by: 64) {
                        compress(block: block, at: blockStart, w: w, k: k, state: &state)
                    }
                }
            }
        }
        return [UInt8](unsafeUninitializedCapacity: 32) { output, initialized in
            for index in 0..<8 {
                let word: UInt32
                switch index {
                case 0: word = state.0
                case 1: word = state.1
                case 2: word = state.2
                case 3: word = state.3
                case 4: word = state.4
                case 5: word = state.5
                case 6: word = state.6
                default: word = state.7
                }
                output[index * 4] = UInt8(truncatingIfNeeded: word >> 24)
                output[index * 4 + 1] = UInt8(truncatingIfNeeded: word >> 16)
                output[index * 4 + 2] = UInt8(truncatingIfNeeded: word >> 8)
                output[index * 4 + 3] = UInt8(truncatingIfNeeded: word)
            }
            initialized = 32
        }
    }

    private static func compress(block: UnsafeBufferPointer<UInt8>, at start: Int, w: UnsafeMutableBufferPointer<UInt32>,
                                 k: UnsafeBufferPointer<UInt32>,
                                 state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)) {
        for t in 0..<16 {
            let i = start + t * 4
            w[t] = UInt32(block[i]) << 24 | UInt32(block[i + 1]) << 16 | UInt32(block[i + 2]) << 8 | UInt32(block[i + 3])
        }
        for t in 16..<64 {
            let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = state
        for t in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let ch = (e & f) ^ (~e & g)
            let temp1 = h &+ s1 &+ ch &+ k[t] &+ w[t]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let maj = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = s0 &+ maj
            h = g; g = f; f = e; e = d &+ temp1
            d = c; c = b; b = a; a = temp1 &+ temp2
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }

    /// The lowercase hex digest of a string's UTF-8 bytes.
    static func hex(_ text: String) -> String {
        hexString(digest(text.utf8))
    }

    static func hexString(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { output in
            for (index, byte) in bytes.enumerated() {
                output[index * 2] = hexDigit(byte >> 4)
                output[index * 2 + 1] = hexDigit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private static func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
