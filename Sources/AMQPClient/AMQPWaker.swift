import CRabbitMQ
import Foundation

/// An eventfd that wakes a thread blocked in `poll` when another thread has work for it.
final class AMQPWaker: @unchecked Sendable {
    let descriptor: Int32

    init() {
        descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(descriptor >= 0, "eventfd failed: errno \(errno)")
    }

    deinit { Foundation.close(descriptor) }

    func wake() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(descriptor, $0.baseAddress, 8) }
    }

    func drain() {
        var value: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &value) { read(descriptor, $0.baseAddress, 8) }
    }
}
