import PushDelivery

/// The push provider of a process started without APNs credentials: every push is recorded
/// as failed with a reason that says what to configure. Runs, plans and dry runs still work.
struct UnconfiguredPushProvider: PushProvider {
    func send(_ batch: [PushNotification]) -> [PushResult] {
        batch.map { _ in
            PushResult(outcome: .failed(status: nil, reason: "APNs is not configured: set BUZZKIT_APNS_KEY_FILE, BUZZKIT_APNS_KEY_ID and BUZZKIT_APNS_TEAM_ID"),
                       apnsId: nil, status: nil, attempts: 0)
        }
    }
}
