import APNsStandIn
import DeviceSimulator
import Foundation

// `buzzkit-devicesim fleet …`: a fleet of simulated phones against a running BuzzKit, with
// the APNs stand-in in this process (the server's APNs URL must point at it).
// `buzzkit-devicesim chaos …`: the fault drill, which starts BuzzKit's processes itself.
let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
do {
    switch arguments.first {
    case "fleet": exit(try FleetCommand(arguments: Array(arguments.dropFirst()), environment: environment).run())
    case "chaos": exit(try ChaosCommand(arguments: Array(arguments.dropFirst()), environment: environment).run())
    default: throw SimulatorError(FleetCommand.usage + "\n" + ChaosCommand.usage)
    }
} catch {
    FileHandle.standardError.write(Data("buzzkit-devicesim: \(error)\n".utf8))
    exit(2)
}
