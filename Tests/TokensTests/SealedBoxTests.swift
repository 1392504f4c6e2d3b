import Testing
@testable import Tokens

@Suite("Sealed box (AES-256-GCM)")
struct SealedBoxTests {
    let key = Crypto.sha256(Array("a refresh token".utf8))

    @Test func aBoxOpensWithItsKeyOnly() throws {
        let box = try SealedBox.seal(Array("successor".utf8), key: key)

        #expect(SealedBox.open(box, key: key) == Array("successor".utf8))
        #expect(SealedBox.open(box, key: Crypto.sha256(Array("another token".utf8))) == nil)
    }

    @Test func everyAlteredByteIsDetected() throws {
        let box = try SealedBox.seal(Array("successor".utf8), key: key)
        for index in box.indices {
            var altered = box
            altered[index] ^= 0x01
            #expect(SealedBox.open(altered, key: key) == nil, "byte \(index)")
        }
        #expect(SealedBox.open(Array(box.dropLast()), key: key) == nil)
        #expect(SealedBox.open([], key: key) == nil)
    }

    @Test func twoSealsOfOneTextDiffer() throws {
        #expect(try SealedBox.seal([1, 2, 3], key: key) != SealedBox.seal([1, 2, 3], key: key))
        #expect(throws: TokenError.self) { try SealedBox.seal([1], key: [1, 2, 3]) }
    }

    @Test func constantTimeEqualityComparesWholeStrings() {
        #expect(Crypto.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!Crypto.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!Crypto.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(Crypto.constantTimeEquals([], []))
    }
}
