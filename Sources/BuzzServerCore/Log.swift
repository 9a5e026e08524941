import Foundation

/// One-line structured logs on standard error: JSON for machines, a short line for people.
public struct Log: Sendable {
    public enum Format: String, Sendable { case json, human }

    public let format: Format
    public let component: String
    private static let lock = NSLock()

    public init(format: Format, component: String) {
        self.format = format
        self.component = component
    }

    /// Writes one event with its fields (tenant, run id, queue, message id, duration, …).
    public func info(_ message: String, _ fields: [String: String] = [:]) { write("info", message, fields) }
    public func warning(_ message: String, _ fields: [String: String] = [:]) { write("warn", message, fields) }
    public func error(_ message: String, _ fields: [String: String] = [:]) { write("error", message, fields) }

    private func write(_ level: String, _ message: String, _ fields: [String: String]) {
        let time = Self.timestamp()
        let line: String
        switch format {
        case .json:
            var object: [String: String] = fields
            object["ts"] = time
            object["level"] = level
            object["component"] = component
            object["msg"] = message
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(message.utf8)
            line = String(decoding: data, as: UTF8.self)
        case .human:
            let extra = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            line = "\(time.suffix(13)) \(level.uppercased().padding(toLength: 5, withPad: " ", startingAt: 0)) [\(component)] \(message)\(extra.isEmpty ? "" : "  " + extra)"
        }
        Self.lock.lock()
        FileHandle.standardError.write(Data((line + "\n").utf8))
        Self.lock.unlock()
    }

    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
