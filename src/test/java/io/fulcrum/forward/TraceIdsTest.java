package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** X-Amzn-Trace-Id values (SPEC §11.2), on a fixed clock and a fixed random. */
class TraceIdsTest {

  /** Every nextLong() is 0x0123456789abcdef, so nextInt() is 0x01234567. */
  private static final RandomGenerator FIXED = () -> 0x0123456789abcdefL;
  private static final long TIME = 0x63441c4aL;
  private static final String NEW_ID = "1-63441c4a-0123456789abcdef01234567";
  private static final String ROOT = "Root=1-67891233-abcdef012345678912345678";

  @Test
  void newId_isVersionTimeInEightHexDigitsAndNinetySixRandomBits() {
    assertThat(TraceIds.newId(TIME, FIXED)).isEqualTo(NEW_ID);
  }

  @Test
  void newId_keepsLeadingZeros_andStaysLowerCase() {
    assertThat(TraceIds.newId(0x1aL, () -> 0xAL)).isEqualTo("1-0000001a-000000000000000a00000000");
  }

  @Test
  void newId_fromARealRandom_hasTheFormat() {
    assertThat(TraceIds.newId(TIME, RandomGenerator.getDefault())).matches("1-63441c4a-[0-9a-f]{24}");
  }

  @ParameterizedTest(name = "incoming [{0}]")
  @CsvSource(nullValues = "null", delimiter = '|', value = {"null", "''", "'   '"})
  void process_createsARoot_whenNoHeaderArrives(String incoming) {
    assertThat(TraceIds.process(incoming, 100, TIME, FIXED)).hasToString("Root=" + NEW_ID);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      ROOT + "|Self=" + NEW_ID + ";" + ROOT,
      ROOT + ";CalledFrom=app|Self=" + NEW_ID + ";" + ROOT + ";CalledFrom=app",
      "Self=1-00000000-000000000000000000000000;" + ROOT + ";CalledFrom=app|Self=" + NEW_ID + ";" + ROOT
          + ";CalledFrom=app",
      ROOT + ";Self=1-00000000-000000000000000000000000|" + ROOT + ";Self=" + NEW_ID})
  void process_insertsOrUpdatesSelf_keepingTheOtherFields(String incoming, String expected) {
    assertThat(TraceIds.process(incoming, 100, TIME, FIXED)).hasToString(expected);
  }

  @Test
  void process_rewritesToAFreshRoot_whenTheHeadersExceed7Kb() {
    assertThat(TraceIds.process(ROOT + ";CalledFrom=app", 7 * 1024 + 1, TIME, FIXED)).hasToString("Root=" + NEW_ID);
    assertThat(TraceIds.process(ROOT, 7 * 1024, TIME, FIXED)).hasToString("Self=" + NEW_ID + ";" + ROOT);
  }
}
