import BuzzKitWire
import BuzzServer
import Foundation

extension Commands {
    static let tenantUsage = """
        usage: buzzkit tenant create NAME [--json]
               buzzkit tenant keys list TENANT
               buzzkit tenant keys create TENANT secret|publishable
               buzzkit tenant keys revoke TENANT KEY_ID
               buzzkit tenant signing-secret rotate TENANT [--grace-hours 24]
        """

    /// `buzzkit tenant keys …` and `buzzkit tenant signing-secret rotate …`: rotating keys is
    /// create, move the clients, revoke; rotating the signing secret keeps the old one valid
    /// for the grace period.
    static func tenantKeys(_ directory: Directory, arguments: [String]) throws {
        switch (arguments.first, arguments.dropFirst().first) {
        case ("keys", "list") where arguments.count == 3:
            for key in try directory.keys(tenantId: arguments[2]) {
                let state = key.revokedAt.map { "revoked \(RFC3339.format($0))" } ?? "active"
                print("\(key.id)  \(key.kind)  created \(RFC3339.format(key.createdAt))  \(state)")
            }
        case ("keys", "create") where arguments.count == 4:
            guard let kind = APIKey.Kind(rawValue: arguments[3]) else { throw ServerError(.invalidInput, tenantUsage) }
            print(try directory.createKey(tenantId: arguments[2], kind: kind))
        case ("keys", "revoke") where arguments.count == 4:
            try directory.revokeKey(tenantId: arguments[2], keyId: arguments[3])
            print("revoked \(arguments[3]); the API refuses it within 30 s")
        case ("signing-secret", "rotate") where arguments.count == 3 || arguments.count == 5:
            var hours = 24.0
            if arguments.count == 5 {
                guard arguments[3] == "--grace-hours", let value = Double(arguments[4]), value >= 0 else { throw ServerError(.invalidInput, tenantUsage) }
                hours = value
            }
            let secret = try directory.rotateSigningSecret(tenantId: arguments[2], grace: hours * 3600)
            print(secret)
            FileHandle.standardError.write(Data("the previous signing secret verifies tokens for \(hours) more hours; mint new tokens with this one\n".utf8))
        default:
            throw ServerError(.invalidInput, tenantUsage)
        }
    }
}
