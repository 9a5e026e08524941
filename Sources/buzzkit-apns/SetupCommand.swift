import APNsStandIn
import Foundation

/// `buzzkit-apns setup`: writes the test CA, the server certificate and a provider key pair.
struct SetupCommand {
    var directory = ""
    var keyID = "STANDIN001"
    var teamID = "BUZZKIT001"
    var hosts: [String] = []

    /// Parses the flags after `setup`.
    init(arguments: [String]) throws {
        var reader = ArgumentReader(arguments)
        while let flag = try reader.nextFlag() {
            switch flag {
            case "--dir": directory = try reader.value(for: flag)
            case "--key-id": keyID = try reader.value(for: flag)
            case "--team-id": teamID = try reader.value(for: flag)
            case "--host": hosts.append(try reader.value(for: flag))
            default: throw reader.usage("unknown flag \(flag) for setup")
            }
        }
        guard !directory.isEmpty else { throw reader.usage("setup needs --dir DIR") }
    }

    /// Generates and writes the files, then prints what a provider needs.
    func run() throws {
        let credentials = try StandInCredentials.generate(hosts: hosts.isEmpty ? ["localhost", "127.0.0.1"] : hosts)
        let files = try credentials.write(to: directory)
        let key = try ProviderKeyPair.generate(keyID: keyID, teamID: teamID)
        let keyFiles = try key.write(to: directory)
        print("""
        wrote \(files.caCertificate) (test CA: trust it)
        wrote \(files.serverCertificate) and \(files.serverPrivateKey) (the stand-in's TLS identity)
        wrote \(keyFiles.privateKey) (provider signing key) and \(keyFiles.publicKey) (for the stand-in)

        # start the stand-in:
        buzzkit-apns serve --dir \(directory) --port 2197
        # and point a provider at it:
        export BUZZKIT_APNS_URL=https://127.0.0.1:2197
        export BUZZKIT_APNS_CA_FILE=\(files.caCertificate)
        export BUZZKIT_APNS_KEY_FILE=\(keyFiles.privateKey)
        export BUZZKIT_APNS_KEY_ID=\(keyID)
        export BUZZKIT_APNS_TEAM_ID=\(teamID)
        """)
    }
}
