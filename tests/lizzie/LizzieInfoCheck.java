// Parses analysis lines with Lizzie 0.7.4's own MoveData class (from the Debian package's
// lizzie.jar) exactly as its Leelaz.parseInfo / parseInfoKatago do, for tests/test_lizzie.py.
//
// Run with Java 11+ single-file launch:
//   java -Djava.awt.headless=true -Duser.home=TMP -cp /usr/share/java/lizzie.jar LizzieInfoCheck.java
// Input (stdin): one line per engine output line, "lz<TAB>info move ..." or "kata<TAB>info move ...".
// Output: per input line "line", then per candidate
//   "move<TAB>coordinate<TAB>playouts<TAB>winrate<TAB>policy<TAB>scoreMean<TAB>variation"
// (winrate and policy in percent, as Lizzie shows them), and for kata lines with ownership
// "ownership<TAB>count<TAB>first value" as Leelaz.parseLine splits them; "error<TAB>message"
// when Lizzie's parser throws (in Lizzie that exception ends the thread reading the engine).

import featurecat.lizzie.Config;
import featurecat.lizzie.Lizzie;
import featurecat.lizzie.analysis.MoveData;
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class LizzieInfoCheck {
    public static void main(String[] args) throws Exception {
        Lizzie.config = new Config(); // MoveData reads a few display settings from it
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String input;
        while ((input = in.readLine()) != null) {
            int tab = input.indexOf('\t');
            boolean kata = input.substring(0, tab).equals("kata");
            String line = input.substring(tab + 1) + "\n"; // Lizzie's lines keep their newline
            System.out.println("line");
            try {
                for (String var : line.substring(5).split(" info ")) { // Leelaz.parseInfo
                    if (var.trim().isEmpty()) continue;
                    MoveData m = kata ? MoveData.fromInfoKatago(var) : MoveData.fromInfo(var);
                    System.out.println("move\t" + m.coordinate + "\t" + m.playouts + "\t" + m.winrate + "\t"
                            + m.policy + "\t" + m.scoreMean + "\t" + String.join(" ", m.variation));
                }
                if (kata && line.contains("ownership")) { // Leelaz.parseLine, KataGo estimate
                    String[] params = line.trim().split("ownership");
                    String[] values = params[1].trim().split(" ");
                    double first = Double.parseDouble(values[0]);
                    for (String v : values) Double.parseDouble(v);
                    System.out.println("ownership\t" + values.length + "\t" + first);
                }
            } catch (RuntimeException e) {
                System.out.println("error\t" + e);
            }
        }
    }
}
