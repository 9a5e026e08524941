import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// BuzzKit's real processes (`buzzkit api`, one `buzzkit worker` per queue, `buzzkit
/// scheduler`), started from the built binary with a shared environment.
final class ServerProcesses {
    let binary: String
    let environment: [String: String]
    let logDirectory: String
    private(set) var processes: [(name: String, process: Process)] = []

    init(environment: [String: String], logDirectory: String) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        binary = root.appendingPathComponent(".build/debug/buzzkit").path
        self.environment = environment
        self.logDirectory = logDirectory
    }

    func start(_ name: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = environment
        let log = logDirectory + "/\(name).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        processes.append((name, process))
    }

    /// Runs `buzzkit ARGS` to completion and returns its standard output.
    func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw E2EFailure("buzzkit \(arguments.joined(separator: " ")) exited \(process.terminationStatus)") }
        return String(decoding: data, as: UTF8.self)
    }

    /// SIGTERM to everything; returns the processes that did not exit cleanly within `grace`.
    func stop(grace: TimeInterval) -> [String] {
        for (_, process) in processes where process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(grace)
        var unclean: [String] = []
        for (name, process) in processes {
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                unclean.append("\(name) (still running)")
            } else if process.terminationStatus != 0 {
                unclean.append("\(name) (exit \(process.terminationStatus))")
            }
        }
        processes.removeAll()
        return unclean
    }

    /// Waits until the API on `port` answers `/readyz` with 200 (30 s at most).
    static func waitUntilReady(port: Int) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let (_, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/readyz")!),
               (response as? HTTPURLResponse)?.statusCode == 200 { return }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        throw E2EFailure("the API did not become ready on port \(port)")
    }
}

struct E2EFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
