import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// When the persisted state could not be read at launch (on iOS, a phone not unlocked since
    /// it restarted: its files stay encrypted until then, Apple's "Encrypting Your App's Files"),
    /// reads it again. Returns true when the state is readable: then what this instance did in
    /// memory meanwhile is put on top (``PersistedState/merging(_:maximumQueuedEvents:)``) and
    /// saved. Returns false, having reported why, when it still cannot be read: the caller then
    /// does nothing that would have to be saved.
    @discardableResult
    func readStateIfUnreadable() -> Bool {
        guard stateUnreadable else { return true }
        let stored = PersistedState(store: ports.store, secrets: ports.secrets, prefix: configuration.storageKeyPrefix)
        guard !stored.unreadable else {
            report(.error(BuzzKitError(.storageUnreadable, context: "wake",
                                       message: "the SDK's state cannot be read yet (the phone has not been unlocked since it restarted); this wake changes nothing and a later one catches up")))
            return false
        }
        var meanwhile = PersistedState()
        meanwhile.queue = queue
        meanwhile.pendingLogouts = pendingLogouts
        meanwhile.inbox = inbox
        meanwhile.registration = registration
        meanwhile.identity = identity
        let merged = stored.merging(meanwhile, maximumQueuedEvents: configuration.maximumQueuedEvents)
        queue = merged.queue
        book = merged.book
        registration = merged.registration
        pendingLogouts = merged.pendingLogouts
        inbox = merged.inbox
        identity = merged.identity
        cachedToken = identity?.lastToken ?? cachedToken
        if let stored = stored.installId { installId = stored }
        replacedInstallId = stored.replacedInstall(by: installId)
        for category in stored.categories where knownCategories[category.id] == nil { knownCategories[category.id] = category }
        stateUnreadable = false
        saveQueue()
        saveBook()
        saveRegistration()
        saveLogouts()
        save(inbox, StorageKey.inbox)
        saveIdentity()
        saveInstall()
        if !knownCategories.isEmpty { save(Array(knownCategories.values).sorted { $0.id < $1.id }, StorageKey.categories) }
        if !queue.isEmpty { flushDueAt = clock.now }
        return true
    }
}
