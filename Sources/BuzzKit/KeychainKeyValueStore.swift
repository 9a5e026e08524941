#if canImport(Security)
import Foundation
import Security

/// Secrets (the subscriber token) kept in the Keychain, readable after the phone's first unlock
/// and never leaving this device: `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` (Apple,
/// "Restricting keychain item accessibility": items so marked are not in backups and not
/// migrated to a new device, and a silent push to a locked phone can still read them).
///
/// Each key is a generic-password item of ``service``. A read that fails for a reason other
/// than "not found" (`errSecInteractionNotAllowed` before the first unlock) throws, so the SDK
/// does not take the token for absent.
public final class KeychainKeyValueStore: KeyValueStore {
    /// The items' `kSecAttrService`.
    public let service: String

    /// A store of `service`'s items.
    public init(service: String = "BuzzKit") {
        self.service = service
    }

    private func query(_ key: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: key]
    }

    public func data(forKey key: String) throws -> Data? {
        var item: CFTypeRef?
        var search = query(key)
        search[kSecReturnData as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        let status = SecItemCopyMatching(search as CFDictionary, &item)
        switch status {
        case errSecSuccess: return item as? Data
        case errSecItemNotFound: return nil
        default: throw BuzzKitError(.storageUnreadable, context: "keychain \(key)", message: "the Keychain could not be read (OSStatus \(status))")
        }
    }

    public func setData(_ data: Data?, forKey key: String) throws {
        guard let data else {
            let status = SecItemDelete(query(key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw BuzzKitError(.storage, context: "keychain \(key)", message: "the Keychain item could not be removed (OSStatus \(status))")
            }
            return
        }
        let attributes: [String: Any] = [kSecValueData as String: data,
                                         kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly]
        var status = SecItemUpdate(query(key) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            status = SecItemAdd(query(key).merging(attributes) { $1 } as CFDictionary, nil)
        }
        guard status == errSecSuccess else {
            throw BuzzKitError(.storage, context: "keychain \(key)", message: "the Keychain item could not be written (OSStatus \(status))")
        }
    }
}
#endif
