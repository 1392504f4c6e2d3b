import Hummingbird
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("Access log")
struct AccessLogTests {
    typealias Middleware = AccessLogMiddleware<AppRequestContext>

    @Test("a plain client request id is kept", arguments: ["a", "trace-1.2:3_x", String(repeating: "Z", count: 128)])
    func plainIDsAreKept(id: String) {
        #expect(Middleware.acceptable(id) == id)
    }

    @Test(
        "anything that could break or stuff a log line is refused",
        arguments: ["", "a b", "a\nb", "a\"b", "ü", "{}", "a=b", String(repeating: "Z", count: 129)])
    func otherIDsAreRefused(id: String) {
        #expect(Middleware.acceptable(id) == nil)
    }

    @Test("durations print as milliseconds with three decimals")
    func milliseconds() {
        #expect(Middleware.milliseconds(.microseconds(1_234_567)) == "1234.567")
        #expect(Middleware.milliseconds(.microseconds(5)) == "0.005")
        #expect(Middleware.milliseconds(.zero) == "0.000")
    }
}
