// Drives a GTP engine with GoGui 1.6's own client classes (from gogui.jar) and prints what GoGui
// reads from each answer, one tab-separated record per line, for tests/test_gogui.py to check.
//
// Run with Java 11+ single-file launch: java -cp gogui.jar GoGuiClientCheck.java SIZE NUMBERED PROGRAM
//   SIZE      board size
//   NUMBERED  "true": GoGui's auto-numbering (every command sent as "N command", answers "=N ...")
//   PROGRAM   the engine command line, as GoGui's -program option takes it
//
// Records: "answer <command> <json-escaped answer as GoGui's GtpClient returns it>",
//          "full <command> <json-escaped full response>", and for the answers GoGui parses:
//          "dboard <row>" (rows from the top, GoGui's parseDoubleBoard), "pspairs <point> <string>",
//          "var <colour> <point>", "plist <points>", "analyze <type> <label> <command>",
//          "error <command> <message>" when GoGui rejects an answer.

import java.util.ArrayList;
import net.sf.gogui.go.GoColor;
import net.sf.gogui.go.GoPoint;
import net.sf.gogui.go.Move;
import net.sf.gogui.go.PointList;
import net.sf.gogui.gtp.AnalyzeDefinition;
import net.sf.gogui.gtp.GtpClient;
import net.sf.gogui.gtp.GtpError;
import net.sf.gogui.gtp.GtpResponseFormatError;
import net.sf.gogui.gtp.GtpUtil;

public class GoGuiClientCheck {
    private static GtpClient gtp;

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c == '\n') b.append("\\n");
            else if (c < 32) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    private static String send(String command) throws GtpError {
        String answer = gtp.send(command);
        System.out.println("answer\t" + command + "\t" + quote(answer));
        System.out.println("full\t" + command + "\t" + quote(gtp.getFullResponse()));
        return answer;
    }

    public static void main(String[] args) throws Exception {
        int size = Integer.parseInt(args[0]);
        boolean numbered = Boolean.parseBoolean(args[1]);
        gtp = new GtpClient(args[2], null, false, null);
        gtp.setAutoNumber(numbered);
        try {
            send("name");
            send("version");
            send("protocol_version");
            gtp.querySupportedCommands();
            System.out.println("supports\tprotocol_version\t" + gtp.isSupported("protocol_version"));
            System.out.println("supports\tdlgo-ownership\t" + gtp.isSupported("dlgo-ownership"));
            send("boardsize " + size);
            send("clear_board");
            send("komi 7");
            send("play b C3");
            send("play w G7");
            send("showboard");

            String analyze = send("gogui-analyze_commands");
            ArrayList<String> supported = new ArrayList<>(gtp.getSupportedCommands());
            for (AnalyzeDefinition d : AnalyzeDefinition.read(supported, null, analyze))
                System.out.println("analyze\t" + d.getType() + "\t" + d.getLabel() + "\t" + d.getCommand());

            String own = send("dlgo-ownership");
            try {
                // GoGui's dboard view: values[x][y], x from the left, y from the bottom.
                double[][] values = GtpUtil.parseDoubleBoard(own, size);
                for (int y = size - 1; y >= 0; --y) {
                    StringBuilder row = new StringBuilder();
                    for (int x = 0; x < size; ++x) row.append(x == 0 ? "" : " ").append(values[x][y]);
                    System.out.println("dboard\t" + row);
                }
            } catch (GtpResponseFormatError e) {
                System.out.println("error\tdlgo-ownership\t" + e.getMessage());
            }

            String visits = send("dlgo-visits");
            try {
                PointList points = new PointList();
                ArrayList<String> strings = new ArrayList<>();
                GtpUtil.parsePointStringList(visits, points, strings, size);
                for (int i = 0; i < points.size(); ++i)
                    System.out.println("pspairs\t" + points.get(i) + "\t" + strings.get(i));
            } catch (GtpResponseFormatError e) {
                System.out.println("error\tdlgo-visits\t" + e.getMessage());
            }

            for (Move m : GtpUtil.parseVariation(send("dlgo-pv"), GoColor.BLACK, size))
                System.out.println("var\t" + m.getColor() + "\t" + m.getPoint());

            try {
                PointList dead = GtpUtil.parsePointList(send("final_status_list dead"), size);
                System.out.println("plist\t" + dead.size());
            } catch (GtpResponseFormatError e) {
                System.out.println("error\tfinal_status_list\t" + e.getMessage());
            }

            try {
                GoPoint move = GtpUtil.parsePoint(send("genmove b"), size);
                System.out.println("genmove\t" + move);
            } catch (GtpResponseFormatError e) {
                System.out.println("error\tgenmove\t" + e.getMessage());
            }
            send("quit");
        } catch (GtpError e) {
            System.out.println("error\tclient\t" + e.getMessage());
        } finally {
            gtp.close();
            gtp.waitForExit();
        }
    }
}
