import CRabbitMQ
import Foundation

/// Owns C memory handed to rabbitmq-c for one call (strings, bytes, tables) and frees it.
final class CArena {
    private var allocations: [UnsafeMutableRawPointer] = []

    deinit { allocations.forEach { free($0) } }

    /// Copies `string` into C memory (NUL-terminated) as amqp bytes.
    func bytes(_ string: String) -> amqp_bytes_t {
        var utf8 = Array(string.utf8)
        return bytes(&utf8)
    }

    func bytes(_ data: Data) -> amqp_bytes_t {
        var raw = [UInt8](data)
        return bytes(&raw)
    }

    private func bytes(_ raw: inout [UInt8]) -> amqp_bytes_t {
        let pointer = malloc(raw.count + 1)!
        raw.withUnsafeBytes { source in
            if let base = source.baseAddress { memcpy(pointer, base, raw.count) }
        }
        pointer.storeBytes(of: 0, toByteOffset: raw.count, as: UInt8.self)
        allocations.append(pointer)
        return amqp_bytes_t(len: raw.count, bytes: pointer)
    }

    /// A C string that lives as long as the arena.
    func cString(_ string: String) -> UnsafePointer<CChar> {
        let pointer = strdup(string)!
        allocations.append(UnsafeMutableRawPointer(pointer))
        return UnsafePointer(pointer)
    }

    /// Encodes a Swift table as an `amqp_table_t` living in this arena.
    func table(_ values: [String: AMQPFieldValue]) -> amqp_table_t {
        guard !values.isEmpty else { return amqp_empty_table }
        let entries = allocate(amqp_table_entry_t.self, count: values.count)
        for (index, (key, value)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
            entries[index] = amqp_table_entry_t(key: bytes(key), value: field(value))
        }
        return amqp_table_t(num_entries: Int32(values.count), entries: entries)
    }

    private func field(_ value: AMQPFieldValue) -> amqp_field_value_t {
        var out = amqp_field_value_t()
        switch value {
        case .string(let s):
            out.kind = UInt8(AMQP_FIELD_KIND_UTF8.rawValue)
            out.value.bytes = bytes(s)
        case .int(let i):
            out.kind = UInt8(AMQP_FIELD_KIND_I64.rawValue)
            out.value.i64 = i
        case .bool(let b):
            out.kind = UInt8(AMQP_FIELD_KIND_BOOLEAN.rawValue)
            out.value.boolean = b ? 1 : 0
        case .double(let d):
            out.kind = UInt8(AMQP_FIELD_KIND_F64.rawValue)
            out.value.f64 = d
        case .bytes(let d):
            out.kind = UInt8(AMQP_FIELD_KIND_BYTES.rawValue)
            out.value.bytes = bytes(d)
        case .timestamp(let t):
            out.kind = UInt8(AMQP_FIELD_KIND_TIMESTAMP.rawValue)
            out.value.u64 = UInt64(max(0, t.timeIntervalSince1970))
        case .array(let items):
            out.kind = UInt8(AMQP_FIELD_KIND_ARRAY.rawValue)
            let entries = allocate(amqp_field_value_t.self, count: max(items.count, 1))
            for (i, item) in items.enumerated() { entries[i] = field(item) }
            out.value.array = amqp_array_t(num_entries: Int32(items.count), entries: entries)
        case .table(let t):
            out.kind = UInt8(AMQP_FIELD_KIND_TABLE.rawValue)
            out.value.table = table(t)
        case .void:
            out.kind = UInt8(AMQP_FIELD_KIND_VOID.rawValue)
        }
        return out
    }

    private func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let raw = calloc(count, MemoryLayout<T>.stride)!
        allocations.append(raw)
        return raw.bindMemory(to: T.self, capacity: count)
    }
}

/// Decoding of rabbitmq-c values into Swift.
enum AMQPDecode {
    static func string(_ bytes: amqp_bytes_t) -> String {
        guard bytes.len > 0, let base = bytes.bytes else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: base, count: bytes.len), as: UTF8.self)
    }

    static func data(_ bytes: amqp_bytes_t) -> Data {
        guard bytes.len > 0, let base = bytes.bytes else { return Data() }
        return Data(bytes: base, count: bytes.len)
    }

    static func table(_ table: amqp_table_t) -> [String: AMQPFieldValue] {
        var out: [String: AMQPFieldValue] = [:]
        guard table.num_entries > 0, let entries = table.entries else { return out }
        for i in 0..<Int(table.num_entries) {
            out[string(entries[i].key)] = field(entries[i].value)
        }
        return out
    }

    static func field(_ value: amqp_field_value_t) -> AMQPFieldValue {
        switch UInt32(value.kind) {
        case AMQP_FIELD_KIND_UTF8.rawValue: return .string(string(value.value.bytes))
        case AMQP_FIELD_KIND_BYTES.rawValue: return .bytes(data(value.value.bytes))
        case AMQP_FIELD_KIND_BOOLEAN.rawValue: return .bool(value.value.boolean != 0)
        case AMQP_FIELD_KIND_I8.rawValue: return .int(Int64(value.value.i8))
        case AMQP_FIELD_KIND_U8.rawValue: return .int(Int64(value.value.u8))
        case AMQP_FIELD_KIND_I16.rawValue: return .int(Int64(value.value.i16))
        case AMQP_FIELD_KIND_U16.rawValue: return .int(Int64(value.value.u16))
        case AMQP_FIELD_KIND_I32.rawValue: return .int(Int64(value.value.i32))
        case AMQP_FIELD_KIND_U32.rawValue: return .int(Int64(value.value.u32))
        case AMQP_FIELD_KIND_I64.rawValue: return .int(value.value.i64)
        case AMQP_FIELD_KIND_U64.rawValue: return .int(Int64(truncatingIfNeeded: value.value.u64))
        case AMQP_FIELD_KIND_F32.rawValue: return .double(Double(value.value.f32))
        case AMQP_FIELD_KIND_F64.rawValue: return .double(value.value.f64)
        case AMQP_FIELD_KIND_TIMESTAMP.rawValue: return .timestamp(Date(timeIntervalSince1970: Double(value.value.u64)))
        case AMQP_FIELD_KIND_TABLE.rawValue: return .table(table(value.value.table))
        case AMQP_FIELD_KIND_ARRAY.rawValue:
            let array = value.value.array
            guard array.num_entries > 0, let entries = array.entries else { return .array([]) }
            return .array((0..<Int(array.num_entries)).map { field(entries[$0]) })
        default: return .void
        }
    }
}
