import Testing
@testable import Fieldpass

/// A hub places at its first read and then at most every half safety-net interval; the reads
/// between read only what is placed.
@Suite("Placing looks")
struct PlacingLooksTests {
    @Test func theFirstReadPlacesAndThenOneEveryHalfInterval() {
        var looks = PlacingLooks(safetyNetInterval: .seconds(4))
        let start = ContinuousClock.now
        let reads = [0, 1, 1.999, 2, 2.5, 3.999, 4, 9].map { looks.places(at: start + .seconds($0)) }
        #expect(reads == [true, false, false, true, false, false, true, true])
    }
}
