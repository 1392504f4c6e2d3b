import Testing
import Tokens
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("User codes and sealed successors")
struct UserCodeTests {
    @Test func aCodeIsEightUnambiguousLettersInTwoGroups() throws {
        var seen = Set<String>()
        var letters: [Character: Int] = [:]
        for _ in 0..<500 {
            let code = try UserCode.make()
            #expect(code.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil, "\(code)")
            seen.insert(code)
            for letter in code where letter != "-" { letters[letter, default: 0] += 1 }
        }
        #expect(seen.count == 500)
        // 4,000 letters over 20: each about 200; a skewed generator would leave some rare.
        #expect(letters.count == 20 && letters.values.allSatisfy { $0 > 120 })
    }

    @Test func aSealedSuccessorOpensOnlyWithThePreviousToken() throws {
        let sealed = try TokenIssuer.seal(successor: "next-token", previous: "old-token")

        #expect(TokenIssuer.openSuccessor(sealed, previous: "old-token") == "next-token")
        #expect(TokenIssuer.openSuccessor(sealed, previous: "other-token") == nil)
        // The stored hash of the old token is no key to it.
        #expect(TokenIssuer.openSuccessor(sealed, previous: TokenIssuer.hash(refreshToken: "old-token")) == nil)
    }
}
