import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("Shared devices' long-poll places")
struct DeviceLongPollsTests {
    @Test("an environment's devices hold at most its share, all devices at most the capacity")
    func fairShare() async {
        let places = DeviceLongPolls(capacity: 3, environments: 2)
        #expect(places.share == 1)
        var admitted: [String] = []
        _ = await places.withPlace(device: "a1", environment: "a") { _ in
            admitted.append("a1")
            _ = await places.withPlace(device: "a2", environment: "a") { _ in admitted.append("a2, over a's share") }
            _ = await places.withPlace(device: "b1", environment: "b") { _ in
                admitted.append("b1")
                _ = await places.withPlace(device: "c1", environment: "c") { _ in
                    admitted.append("c1")
                    _ = await places.withPlace(device: "d1", environment: "d") { _ in admitted.append("d1, over the capacity") }
                }
            }
        }
        #expect(admitted == ["a1", "b1", "c1"])
        #expect(await places.withPlace(device: "a2", environment: "a") { _ in true } == true, "places come free when their polls end")
        #expect(DeviceLongPolls(capacity: 20_000, environments: 3).share == 6666)
        #expect(DeviceLongPolls(capacity: 64, environments: 0).share == 64)
    }

    @Test("a device waits once: its newer poll takes the older one's place and ends the older one")
    func aNewerPollEndsTheOlder() async {
        let places = DeviceLongPolls(capacity: 2, environments: 2)
        var outcome: [String] = []
        _ = await places.withPlace(device: "a1", environment: "a") { older in
            _ = await places.withPlace(device: "a1", environment: "a") { newer in
                outcome.append(older.generation > 0 ? "older ended" : "older still waits")
                outcome.append(newer.generation > 0 ? "newer ended" : "newer waits")
                _ = await places.withPlace(device: "a2", environment: "a") { _ in outcome.append("a2, over a's share") }
                _ = await places.withPlace(device: "b1", environment: "b") { _ in outcome.append("b1") }
            }
        }
        #expect(outcome == ["older ended", "newer waits", "b1"])

        // The older poll ends after the newer one took the place: the place stays the newer one's.
        let (started, newerStarted) = AsyncStream.makeStream(of: Void.self)
        var newer: Task<Void, Never>?
        _ = await places.withPlace(device: "a1", environment: "a") { _ in
            newer = Task {
                _ = await places.withPlace(device: "a1", environment: "a") { _ in
                    newerStarted.yield()
                    try? await Task.sleep(for: .seconds(3600))
                }
            }
            for await _ in started { break }
        }
        #expect(await places.withPlace(device: "a2", environment: "a") { _ in true } == nil, "a1's newer poll holds a's place")
        newer?.cancel()
        await newer?.value
        #expect(await places.withPlace(device: "a2", environment: "a") { _ in true } == true, "a's place came free with it")
    }
}
