package org.sagas.testkit.fuzz;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Where a hostile request's every decision comes from. Backed by a random generator for long
 * runs, or by a list of numbers a property-based test generates and shrinks: choice 0 is always
 * the plainest option, so a shrunk failing case reads simply.
 */
public interface Choices {
    /** A number from 0 (the plainest) to {@code bound - 1}. */
    int next(int bound);

    static Choices random(RandomGenerator random) {
        return random::nextInt;
    }

    /** Takes the numbers in order; 0 once they run out. */
    static Choices of(List<Integer> numbers) {
        return new Choices() {
            private int i;

            @Override
            public int next(int bound) {
                return i < numbers.size() ? Math.floorMod(numbers.get(i++), bound) : 0;
            }
        };
    }
}
