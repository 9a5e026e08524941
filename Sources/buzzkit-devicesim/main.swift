import APNsStandIn
import DeviceSimulator
import Foundation

// `buzzkit-devicesim fleet …`: a fleet of simulated phones against a running BuzzKit, with
// the APNs stand-in in this process (the server's APNs URL must point at it).
let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
do {
    guard arguments.first == "fleet" else { throw SimulatorError(FleetCommand.usage) }
    let command = try FleetCommand(arguments: Array(arguments.dropFirst()), environment: environment)
    exit(try command.run())
} catch {
    FileHandle.standardError.write(Data("buzzkit-devicesim: \(error)\n".utf8))
    exit(2)
}
