import AppleModelCore
import BuzzKitOnAppleModel
import Foundation

/// The app's files on a simulated phone, with iOS's data protection: the SDK's state is
/// written protected until first user authentication (``FileKeyValueStore``'s class) and its
/// subscriber token lives in the Keychain after first unlock (``KeychainKeyValueStore``), so on
/// a phone not unlocked since it restarted neither can be read nor written (Apple Platform
/// Security, "Data Protection classes"; "Encrypting Your App's Files": "the file is
/// inaccessible until the user unlocks the device for the first time"). The phone's storage
/// itself lives in memory, across the app's launches.
final class DataProtectedStore: KeyValueStore, @unchecked Sendable {
    private let inner: InMemoryKeyValueStore
    private let device: ModelDevice
    private let onRefusal: @Sendable () -> Void

    /// `onRefusal` is told of each read or write refused before the first unlock.
    init(_ inner: InMemoryKeyValueStore, device: ModelDevice, onRefusal: @escaping @Sendable () -> Void) {
        self.inner = inner
        self.device = device
        self.onRefusal = onRefusal
    }

    func data(forKey key: String) throws -> Data? {
        guard device.protectedDataAvailable else { throw refuse(key, reading: true) }
        return try inner.data(forKey: key)
    }

    func setData(_ data: Data?, forKey key: String) throws {
        guard device.protectedDataAvailable else { throw refuse(key, reading: false) }
        try inner.setData(data, forKey: key)
    }

    private func refuse(_ key: String, reading: Bool) -> CocoaError {
        onRefusal()
        return CocoaError(reading ? .fileReadNoPermission : .fileWriteNoPermission,
                          userInfo: [NSLocalizedDescriptionKey: "\(key): the phone has not been unlocked since it restarted"])
    }
}
