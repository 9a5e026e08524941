import APNsStandIn
import Foundation

// buzzkit-apns: the APNs stand-in from the command line (see ArgumentReader.help).
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "setup":
        try SetupCommand(arguments: Array(arguments.dropFirst())).run()
    case "serve":
        try ServeCommand(arguments: Array(arguments.dropFirst())).run()
    case "help", "--help", "-h", nil:
        print(ArgumentReader.help)
    default:
        FileHandle.standardError.write(Data("unknown command \(arguments[0])\n\n\(ArgumentReader.help)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("buzzkit-apns: \(error)\n".utf8))
    exit(1)
}
