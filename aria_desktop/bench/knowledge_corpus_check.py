"""The checking half of the knowledge-search corpus (see ``knowledge_corpus``): the Okafors.

Laundry drying, coffee, electrics, fire safety, home insurance, school, childcare, term dates,
cooking, the recycling centre, the dentist, heating, paint, photo backups, moving house,
allergies, running and a birthday party. Nothing is tuned on these questions; none of these
topics is in ``knowledge_corpus_tune``.
"""

from __future__ import annotations

__all__ = ["DOCUMENTS", "QUESTIONS", "UPDATES"]

DOCUMENTS: dict[str, str] = {
    "tumble-dryer-manual.pdf": """\
@title Aldea HP-9 heat pump tumble dryer - Operating instructions
== 1 About your dryer
1.1 Intended use. The Aldea HP-9 dries textiles whose care label allows tumble drying. It is
intended for private households only.
1.2 How it works. A heat pump removes moisture from the air in a closed circuit; no vent hose is
needed. The water collects in a container at the top left of the appliance.
== 2 Safety warnings
2.1 Fire risk. Never dry items soiled with cooking oil, acetone, petrol, wax or stain remover,
even after washing. Do not dry foam rubber, shower caps or rubber-backed mats.
2.2 Do not stop the dryer before the end of the programme except in an emergency: the cool-down
phase protects the laundry from overheating.
== 3 Installation
3.1 Ambient conditions. The room must stay between 5°C and 35°C and be free of frost; at lower
temperatures the heat pump cannot work.
3.2 Stacking. Use the stacking kit WTV 400 (sold separately) to place the dryer on a
front-loading washer of the same width. Never stack the appliances without it.
3.3 Drain. Near a sink or standpipe, connect the drain hose supplied; maximum drain height 1 m.
== 4 Programmes
- Cotton Cupboard Dry: normal cotton laundry, max 9 kg
- Iron Dry: leaves laundry slightly damp for ironing
- Synthetics: max 4 kg
- Wool Finish: max 1 kg, fluffs up woollens that were dried on the line
- Refresh 20 min: removes odours from clothes worn once
== 5 Sorting and loading
Check the care label. A square with a circle means tumble drying is allowed; with one dot
inside, dry on low heat only; crossed out, do not tumble dry. Do up zips and turn jeans inside
out. Do not overload the drum.
== 6 Emptying the condensed water
Empty the water container after every drying cycle. It holds 4.8 litres. When it is full the
container symbol lights and the programme stops. The condensed water is not drinkable.
== 7 Cleaning the filters
7.1 Fluff filter. Clean the fluff filter in the door opening after every cycle.
7.2 Plinth filter. Rinse the foam filter behind the flap at the bottom front under running water
every 5 cycles, or when the filter symbol lights. Squeeze it out; do not wring it.
7.3 Heat exchanger. Once a year, vacuum the fins behind the plinth filter with a soft brush.
== 8 What to do if ...
- F01: the door is open or not closed properly.
- F03: the water container is full or not pushed in until it clicks.
- F12: the heat pump is overheating. Let the dryer cool for one hour and clean all filters.
The laundry is still damp: the load was too large, the filters are blocked or the room is cold.
== 9 Technical data
- Height 850 mm, width 596 mm, depth 640 mm; weight 52 kg
- Maximum load 9 kg; energy efficiency class A+++
- Energy consumption 193 kWh per year; noise 62 dB(A)
- Refrigerant R290, 0.15 kg
== 10 Guarantee and service
Aldea guarantees this appliance for 3 years from the date of delivery. The guarantee does not
cover filters, bulbs, damage from incorrect installation or commercial use.

Spare parts are available for at least 10 years after the model is discontinued. Customer
service: 0330 088 4242, Monday to Saturday 8:00 to 20:00.
""",
    "coffee-machine-manual.pdf": """\
@title Brio BC-200 bean-to-cup coffee machine - User manual
== Getting to know your Brio
Welcome to fresh coffee at the touch of a button! Your Brio BC-200 grinds whole beans for every
cup. The bean hopper holds 250 g, the water tank at the back 1.8 litres; the brewing unit sits
behind the side door and the steam wand is on the right.
== Safety first
Never put your fingers into the bean hopper while the machine is on. The steam wand and the hot
water outlet get very hot: hold them by the rubber grip only.
== First use
Fill the tank with fresh cold water, never sparkling water or milk. Put only roasted whole beans
in the hopper: never pour ground coffee into it, and avoid oily or flavoured beans.

Measure your water hardness with the test strip and set it under Settings > Water hardness.
== Making coffee
Put a cup under the spout and press the button for your drink: espresso (40 ml) or coffee
(120 ml). Press twice for a double. To change the amount, hold the button until it beeps.

For milk, fill a jug one third with cold milk, hold the steam wand just under the surface and
turn the dial to steam. Wipe the wand straight after use.
== Adjusting the grinder
The grind dial has 7 settings: 1 is the finest and gives the strongest, fullest taste; 7 is the
coarsest. Only turn the dial while the grinder is running, one step at a time.
== Daily and weekly cleaning
Every day: empty the drip tray and the grounds container when the light comes on.

Every week: take the brewing unit out through the side door, rinse it under lukewarm water
without washing-up liquid and let it dry before refitting it.
== Descaling
Descale the machine every 90 days, or sooner when the descaling light flashes. Pour 100 ml of
Brio descaler into the tank, fill up with water and start Menu > Descale.

The programme takes about 25 minutes. Rinse the tank and refill it with fresh water afterwards.
== Troubleshooting
- Coffee is too weak or watery: set the grinder finer or use fresher beans.
- Coffee only drips out: the grind is too fine or the machine needs descaling.
- The grounds light stays on: empty the container while the machine is switched on.
== Specifications and warranty
Power 1450 W; pump pressure 15 bar; water tank 1.8 litres. Warranty: 24 months from date of
purchase. Register at brio-coffee.com within 30 days to extend the cover for the brewing unit.
""",
    "electrician-invoice.pdf": """\
@title Hallam Electrical Services - Invoice 2025-0412
== Invoice 2025-0412
Hallam Electrical Services, Unit 4 Mill Yard, Northmoor NM2 6DT. Invoice to: Mr and Mrs Okafor,
27 Fenwick Close, Northmoor NM4 1QS. Invoice date: 11 April 2025.

- Replace consumer unit with 10-way RCBO board and surge protection: £685.00
- Electrical installation condition report (EICR), whole house: £160.00
- Two double sockets added in the home office: £95.00
Subtotal £940.00. VAT at 20%: £188.00. Total due: £1,128.00.

Payment terms: within 14 days of the invoice date by bank transfer, quoting the invoice number.
The EICR certificate is attached. Next inspection recommended by April 2035.
""",
    "smoke-alarm-leaflet.pdf": """\
@title Northmoor Fire and Rescue Service - Smoke alarms save lives
== Smoke alarms: the basics
Fit at least one smoke alarm on every level of your home, on the ceiling of the hall and the
landing. Test your alarms once a week by pressing the test button until it sounds.

Replace the whole alarm every 10 years, even if it still seems to work: the sensor wears out.

Do not fit a smoke alarm in the kitchen, where cooking causes false alarms; fit a heat alarm.
== Carbon monoxide and free safety visits
Carbon monoxide has no smell. Fit a CO alarm between 1 and 3 metres from the appliance in
every room with a boiler, gas fire or wood burner.

If it sounds: open the windows, turn off the appliances, go outside and call 0800 111 999.

We fit alarms free of charge for people over 65 and families with young children. To book a
home fire safety visit call 0800 032 1121.
""",
    "home-insurance-policy.docx": """\
= Home insurance - policy schedule
Harbour Mutual Home Insurance, policy number HM-88213-K. This schedule forms part of your policy.
# Your details
Policyholders: Chidi and Rosa Okafor. Property: 27 Fenwick Close, Northmoor NM4 1QS, a
three-bedroom semi-detached house. Period of insurance: 1 September 2025 to 31 August 2026;
your policy renews on 1 September each year. Annual premium: £412.60, paid monthly.
# Summary of cover
| Section | Sum insured or limit | Excess |
| Buildings | £350,000 | £350 |
| Contents | £60,000 | £150 |
| Escape of water | included | £500 |
| Accidental damage to contents | included | £100 |
| Any single valuable item | £2,000 | standard contents excess |
| Personal possessions away from home | not covered | n/a |
| Home emergency (24-hour helpline) | £1,000 per claim | nil |
# Conditions
## Unoccupancy
If the home is left empty for more than 60 consecutive days, cover for theft, escape of water
and malicious damage stops until someone lives there again.
## Locks
Front and back doors must have 5-lever mortice deadlocks, used whenever the home is empty.
# Making a claim
Call 0800 051 7788, 24 hours a day. For a burst pipe or a broken lock, call the home emergency
line first on 0800 051 7790.
""",
    "school-timetable.docx": """\
= Maple Class (Year 5) - spring term timetable
Class teacher: Mrs Adeyemi. Teaching assistant: Mr Cole. Doors open at 8:40.
# Weekly timetable
| Day | 9:00-10:15 | 10:30-12:00 | Afternoon (13:00-15:15) |
| Monday | Maths | English | Science, then PE (indoor) |
| Tuesday | Maths | Guided reading | Music with Mr Rahman |
| Wednesday | Maths | English | Swimming at Northmoor Leisure Centre |
| Thursday | Maths | English | Computing, then PE (outdoor games) |
| Friday | Spelling test and maths | English | French and golden time |
# Things to bring
PE kit on Mondays and Thursdays: white T-shirt, navy shorts and trainers. Swimming kit on
Wednesdays, with a towel and a swimming hat.
Reading book and reading record every day. Homework is set on Friday and due in the following
Wednesday.
""",
    "childminder-agreement-2023.docx": """\
= Childminding agreement
Little Acorns Childminding - Sarah Whitfield, registered childminder. Version 1, signed 4
September 2023.
# Child and hours
Child: Nia Okafor. Monday, Tuesday and Thursday, 8:00 to 17:30, all year round.
# Fees
| Item | Charge |
| Hourly rate | £6.50 per hour |
| Full day (8:00 to 18:00) | £58 per day |
| Late collection | £10 for each 15 minutes after the agreed time |
| Lunch | £2.50 |
Fees are paid monthly in advance by bank transfer.
# Holidays, sickness and notice
Sarah takes up to four weeks' holiday a year, which are not charged. Children who have been sick
must stay at home for 48 hours. Either side may end this agreement with four weeks' notice.
""",
    "childminder-agreement.docx": """\
= Childminding agreement
Little Acorns Childminding - Sarah Whitfield, registered childminder. Version 2, from 1
September 2025; this replaces the 2023 agreement.
# Child and hours
Child: Nia Okafor. Monday, Tuesday and Thursday, 8:00 to 17:30, all year round.
# Fees
| Item | Charge |
| Hourly rate | £7.40 per hour |
| Full day (8:00 to 18:00) | £66 per day |
| Late collection | £15 for each 15 minutes after the agreed time |
| Lunch | £3.00 |
Fees are paid monthly in advance by bank transfer.
# Funded hours
Nia's 15 government-funded hours a week are used on Monday and Tuesday. A consumables charge of
£1.50 per funded hour covers snacks, nappies and outings.
# Holidays, sickness and notice
Sarah takes up to four weeks' holiday a year, which are not charged. Children who have been sick
must stay at home for 48 hours. Either side may end this agreement with four weeks' notice.
""",
    "term-dates-2023.html": """\
@site St Aidan's Primary School | page | About us, Parents, Term dates, Clubs, Contact
@related Uniform, School meals, Absence requests
<h1>Term dates</h1>
<p>Last updated: 15 June 2023</p>
<p>Term and holiday dates for the 2023-24 school year. The school is closed to pupils on INSET
(staff training) days.</p>
<table><caption>School year 2023-24</caption>
<tr><th>Term</th><th>Starts</th><th>Half term</th><th>Ends</th></tr>
<tr><td>Autumn</td><td>Tuesday 5 September 2023</td><td>23 to 27 October 2023</td>
<td>Friday 22 December 2023</td></tr>
<tr><td>Spring</td><td>Monday 8 January 2024</td><td>12 to 16 February 2024</td>
<td>Thursday 28 March 2024</td></tr>
<tr><td>Summer</td><td>Monday 15 April 2024</td><td>27 to 31 May 2024</td>
<td>Tuesday 23 July 2024</td></tr></table>
<h2>INSET days</h2>
<ul><li>Monday 4 September 2023</li><li>Friday 24 November 2023</li></ul>
""",
    "term-dates.html": """\
@site St Aidan's Primary School | article | About us, Parents, Term dates, Clubs, Contact
@related Uniform, School meals, Absence requests, Wraparound care
<h1>Term dates</h1>
<p>Last updated: 10 July 2025. These dates replace the 2023-24 dates on the old website.</p>
<h2>School year 2025-26</h2>
<table><tr><th>Term</th><th>Starts</th><th>Half term</th><th>Ends</th></tr>
<tr><td>Autumn</td><td>Wednesday 3 September 2025</td><td>27 to 31 October 2025</td>
<td>Friday 19 December 2025</td></tr>
<tr><td>Spring</td><td>Monday 5 January 2026</td><td>16 to 20 February 2026</td>
<td>Friday 27 March 2026</td></tr>
<tr><td>Summer</td><td>Monday 13 April 2026</td><td>25 to 29 May 2026</td>
<td>Wednesday 22 July 2026</td></tr></table>
<h2>INSET days</h2>
<p>The school is closed to pupils on Monday 1 and Tuesday 2 September 2025 and on Friday 21
November 2025.</p>
""",
    "lasagne-recipe.html": """\
@site Weeknight Kitchen | content | Recipes, Quick dinners, Baking, Meal plans, Newsletter
@related Spinach and ricotta cannelloni, Garlic bread, Easy tiramisu
<h1>Classic beef lasagne</h1>
<p>Serves 6. Prep 40 min, cook 1 hr 45 min. A proper Sunday lasagne with a slow-cooked ragu.</p>
<h2>Ingredients</h2>
<ul><li>500 g beef mince, 1 onion, 1 carrot, 1 celery stick, 2 garlic cloves</li>
<li>150 ml red wine and 2 x 400 g tins chopped tomatoes</li>
<li>50 g butter, 50 g plain flour, 600 ml whole milk, nutmeg</li>
<li>12 dried lasagne sheets and 60 g grated parmesan</li></ul>
<h2>Method</h2>
<ol><li>Soften the vegetables, brown the mince, add the wine and tomatoes; simmer for 1 hour.</li>
<li>Melt the butter, stir in the flour, whisk in the milk until thick and add the nutmeg.</li>
<li>Heat the oven to 180°C (160°C fan, gas mark 4). Layer ragu, pasta and white sauce three
times, finishing with sauce and parmesan.</li>
<li>Bake for 40-45 minutes until golden and bubbling; rest for 10 minutes before cutting.</li></ol>
<h2>Make ahead and freezing</h2>
<p>Assemble up to 24 hours ahead and keep covered in the fridge; add 10 minutes to the baking
time. Freeze unbaked for up to 3 months.</p>
<table><caption>Nutrition per serving</caption>
<tr><th>kcal</th><th>fat</th><th>saturates</th><th>protein</th><th>salt</th></tr>
<tr><td>612</td><td>29 g</td><td>14 g</td><td>38 g</td><td>1.9 g</td></tr></table>
""",
    "recycling-centre.html": """\
@site Northmoor County Council | main | Rubbish and recycling, Roads, Schools, Libraries
@related Book a van permit, Bulky item collection, Reuse shop
<h1>Household waste recycling centres</h1>
<p>Northmoor residents can take household waste to our two recycling centres free of charge.</p>
<h2>Opening times</h2>
<table>
<tr><th>Centre</th><th>April to September</th><th>October to March</th><th>Closed on</th></tr>
<tr><td>Castle Lane, NM2 4HB</td><td>8am to 6pm</td><td>8am to 4pm</td><td>Wednesdays</td></tr>
<tr><td>Millbrook, NM7 1RE</td><td>9am to 5pm</td><td>9am to 3.30pm</td>
<td>Tuesdays and Thursdays</td></tr></table>
<h2>Vans, trailers and booking</h2>
<p>Cars can visit without booking. Vans, pick-ups and trailers need a free van permit, booked
online at least 3 working days before the visit.</p>
<h2>What you can bring</h2>
<ul><li>Garden waste, wood, metal, cardboard, glass, electricals and textiles</li>
<li>Rubble, soil and plasterboard: up to 3 bags a week, charged at £4 per bag</li>
<li>Paint: only empty or dried-out tins; mix liquid paint with sand or sawdust first</li></ul>
""",
    "dentist.html": """\
@site Ashgrove Dental Care | article | Home, NHS and private, Treatments, Meet the team
@related Teeth whitening, Children's dentistry, Dental anxiety
<h1>Fees and opening hours</h1>
<p>NHS charges are set by the government and are the same at every practice in England.</p>
<h2>NHS treatment charges</h2>
<table><tr><th>Band</th><th>What it includes</th><th>Charge</th></tr>
<tr><td>Band 1</td><td>Examination, diagnosis, X-rays, scale and polish</td><td>£27.40</td></tr>
<tr><td>Band 2</td><td>Band 1 plus fillings, root canal treatment and extractions</td>
<td>£75.30</td></tr>
<tr><td>Band 3</td><td>Bands 1 and 2 plus crowns, dentures and bridges</td><td>£326.70</td></tr>
</table>
<p>NHS treatment is free for under-18s and during pregnancy.</p>
<h2>Missed appointments</h2>
<p>Please give us at least 24 hours' notice if you cannot attend. Appointments missed or
cancelled with less notice are charged at £25.</p>
<h2>Opening hours</h2>
<p>Monday to Thursday 8.30am to 5.30pm, Friday 8.30am to 1pm. Emergency slots are released at
8.30am each morning: call 01632 960884.</p>
""",
    "heating-schedule.md": """\
# Heating schedule

*Last updated: 3 November 2025 - new smart thermostat, this replaces the 2023 schedule.*

## Weekdays

| Time | Temperature |
|---|---|
| 06:00-08:00 | 19.5°C |
| 08:00-17:30 | 16.5°C (setback) |
| 17:30-22:30 | 20.5°C |

## Weekends

08:00-22:30 at 20°C, then 16.5°C overnight.

## Boiler

Flow temperature lowered to 55°C so the condensing boiler actually condenses (it was on 70).
Hot water: 06:00-07:00 and 18:30-19:30.
""",
    "paint-colours.md": """\
# Paint colours

What we used where, for touching up scuffs. Ceilings are Brilliant White matt everywhere.

| Room | Colour | Brand | Finish |
| --- | --- | --- | --- |
| Hall, stairs and landing | Pebble Shore 104 | Hartwell | durable matt |
| Living room | Oat Milk 112 | Coastline Colour Co. | matt |
| Kitchen | Sage Leaf | Hartwell | kitchen and bathroom satin |
| Downstairs loo | Harbour Blue | Coastline Colour Co. | matt |
| Amara's room | Sunbeam Yellow | Hartwell | matt |
| Woodwork (all rooms) | Pure White | Hartwell | satinwood |

## Where the tins are

Leftover tins are on the top shelf in the garage, labelled with the room.
""",
    "slow-cooker-chilli.md": """\
# Slow cooker chilli

Big batch, serves 8. From Rosa's notebook.

## You need

- 1 kg beef mince, 2 onions, 3 garlic cloves, 2 red peppers
- 2 tsp ground cumin, 2 tsp smoked paprika, 1 tsp chilli flakes
- 2 tins chopped tomatoes, 2 tbsp tomato puree, 1 beef stock cube in 300 ml water
- 2 tins kidney beans, drained, and a square of dark chocolate

## Method

1. Brown the mince in batches in a frying pan; don't skip this, it gives the flavour.
2. Soften the onions and peppers, then add the garlic and spices for a minute.
3. Tip everything except the beans into the slow cooker. Cook on LOW for 8 hours or HIGH for 4.
4. Stir in the kidney beans and the chocolate for the last 30 minutes.

Cool quickly and freeze in portions; reheat until piping hot.
""",
    "photo-backup.md": """\
# Photo backup

All family photos live on the desktop PC in /home/rosa/Pictures. The phones sync there with
Syncthing (folder "Camera", only on Wi-Fi).

## Cloud copy

- rclone copies everything to a Backblaze B2 bucket called okafor-photos
- Runs every Sunday at 03:00; the PC wakes up for it
- Deleted files are kept for 30 days in a second bucket, then removed for good

```
# crontab -e
0 3 * * 0  rclone sync /home/rosa/Pictures b2:okafor-photos --backup-dir b2:okafor-deleted
```

Last restore test: 14 January 2025, one album back from the bucket with rclone copy.
""",
    "moving-house-checklist.md": """\
# Moving house checklist

From 9 Linden Street to 27 Fenwick Close on **Friday 28 March**.

## Six weeks before
- [x] Book removals: Swift Movers, quote £1,140 with packing materials, arriving 8am
- [x] Give notice on Linden Street (done 10 Feb)

## Two weeks before
- [ ] Redirect post with Royal Mail for 12 months (£58 online)
- [ ] Tell the council tax office, the bank, the GP and the DVLA

## Moving day
- [ ] Photos of all the meter readings at both houses
- [ ] Hand the old keys in at Crown Lettings by 5pm
""",
    "heating.txt": """\
HEATING SCHEDULE
(written 20 October 2023, for the old thermostat)

Weekdays:
  06:30 - 08:30  21C
  17:00 - 22:00  21C
  rest of the time 16C

Weekends:
  08:00 - 22:30  20C

Hot water: 06:00 - 07:30 and 18:00 - 19:00
""",
    "allergy-notes.txt": """\
Amara - allergies and medicines (for babysitters, grandparents and school trips)

She is ALLERGIC TO PEANUTS AND TREE NUTS - severe. Mild egg allergy: cake and other baked egg
are fine, but no scrambled or boiled egg.

Medicines:
- EpiPen Junior x2: one in her school bag, one in the kitchen drawer next to the fridge
- cetirizine liquid 5 ml once a day, for hay fever April to July

IF SHE HAS A REACTION
- mild (itchy mouth, a few hives): give cetirizine and watch her closely
- swollen lips or tongue, coughing, trouble breathing: EpiPen into the outer thigh, call 999
  and say "anaphylaxis"; use the second pen after 5 minutes if she is no better

Doctor: Dr Bell at Northmoor Health Centre, 01632 960412
""",
    "running-plan.txt": """\
10K TRAINING PLAN
=================
Race: Harbourside 10K, Sunday 12 October, start 9:30 from the pier. Goal: under 55 minutes.
Bib collection: Saturday 11 October at the Harbour Pavilion, 10am-4pm.

Week 1-2: 3 runs a week, 25 min easy
Week 3-4: add strides, Saturday long run 6 km
Week 5: long run 8 km, Tuesday 5 x 3 min at 10K pace
Week 6: long run 9 km (the longest), Tuesday 6 x 3 min
Week 7: long run 7 km, 20 min tempo
Week 8: two short easy runs, rest Friday and Saturday

Paces: easy 6:30 per km, 10K pace 5:25 per km.
""",
    "birthday-party-plan.txt": """\
LEO'S 7TH BIRTHDAY PARTY

When: Saturday 17 May, 2pm to 4pm
Where: Millbrook Village Hall (booked, £60 deposit paid, £45 left to pay on the day)
Theme: dinosaurs
Guests: whole class invited (28), 21 said yes so far

Cake:
Crumbs bakery, dinosaur volcano, collect Friday 16 May after 3pm

Entertainer:
Magic Max, 2:30 to 3:15, £150 cash on the day

To do:
- party bags x 24
- ask Grandma to help with the food
""",
}
"""File name -> source, in the forms ``knowledge_corpus`` writes files from."""

UPDATES: tuple[tuple[str, str, str, str], ...] = (
    ("term-dates-2023.html", "term-dates.html", "2023-06-15", "2025-07-10"),
    ("heating.txt", "heating-schedule.md", "2023-10-20", "2025-11-03"),
    ("childminder-agreement-2023.docx", "childminder-agreement.docx", "2023-09-04", "2025-08-20"),
)
"""(older file, newer file, older date, newer date): the newer one replaces the older."""

# fmt: off
QUESTIONS: dict[str, tuple[tuple[str, str, str], ...]] = {
    # kind: (file or file#page, needle, question)
    "keyword": (
        ("tumble-dryer-manual.pdf#8", "Let the dryer cool for one hour",
         "Aldea dryer F12 error"),
        ("tumble-dryer-manual.pdf#10", "3 years from the date of delivery",
         "What is the guarantee period for the Aldea tumble dryer?"),
        ("coffee-machine-manual.pdf#7", "about 25 minutes", "Brio descale programme duration"),
        ("coffee-machine-manual.pdf#9", "24 months from date of purchase", "brio warranty"),
        ("electrician-invoice.pdf#1", "within 14 days",
         "Payment terms on the Hallam Electrical invoice?"),
        ("smoke-alarm-leaflet.pdf#2", "between 1 and 3 metres",
         "How far from the boiler should a carbon monoxide alarm be fitted?"),
        ("home-insurance-policy.docx", "renews on 1 September each year",
         "home insurance renewal date"),
        ("school-timetable.docx", "due in the following Wednesday",
         "When is Year 5 homework due in?"),
        ("childminder-agreement.docx", "£1.50 per funded hour",
         "consumables charge for funded hours at the childminder"),
        ("lasagne-recipe.html", "160°C fan", "lasagne oven temp fan"),
        ("recycling-centre.html", "£4 per bag", "recycling centre rubble charge"),
        ("heating-schedule.md", "lowered to 55°C", "boiler flow temperature setting?"),
        ("slow-cooker-chilli.md", "LOW for 8 hours", "chilli slow cooker time on low"),
        ("photo-backup.md", "called okafor-photos", "name of the B2 bucket for the photo backup"),
        ("running-plan.txt", "start 9:30", "Harbourside 10K start time"),
        ("birthday-party-plan.txt", "collect Friday 16 May after 3pm",
         "When do I collect Leo's birthday cake?"),
    ),
    "paraphrase": (
        ("tumble-dryer-manual.pdf#3", "stacking kit WTV 400",
         "Can the drier go on top of the washer?"),
        ("tumble-dryer-manual.pdf#3", "between 5°C and 35°C",
         "Will the heat pump drier work in an unheated garage in winter?"),
        ("tumble-dryer-manual.pdf#7", "every 5 cycles",
         "How often should the sponge at the bottom of the drier be washed out?"),
        ("coffee-machine-manual.pdf#7", "every 90 days",
         "how often do I get the limescale out of the coffee machine"),
        ("coffee-machine-manual.pdf#8", "set the grinder finer",
         "My espresso tastes thin. What should I change?"),
        ("electrician-invoice.pdf#1", "£685.00", "What did the new fuse board cost us?"),
        ("smoke-alarm-leaflet.pdf#1", "once a week",
         "How often should I check that the smoke detector beeps?"),
        ("smoke-alarm-leaflet.pdf#1", "every 10 years",
         "how long does a smoke detector last before you need a new one"),
        ("home-insurance-policy.docx", "more than 60 consecutive days",
         "We're going travelling for three months. Is the house still fully insured?"),
        ("school-timetable.docx", "Mondays and Thursdays",
         "which days does Amara need her sports clothes at school"),
        ("lasagne-recipe.html", "up to 24 hours ahead",
         "Can I put the pasta bake together the day before the party?"),
        ("recycling-centre.html", "free van permit",
         "I want to take junk from the loft to the tip in a borrowed transit - what do I need?"),
        ("recycling-centre.html", "sand or sawdust",
         "what do I do with half a tin of leftover emulsion"),
        ("dentist.html", "charged at £25",
         "What happens if I can't make my dental check-up and only tell them that morning?"),
        ("paint-colours.md", "top shelf in the garage",
         "where did we put the spare cans for touching up the walls"),
        ("photo-backup.md", "every Sunday at 03:00",
         "When do our pictures get uploaded to the cloud?"),
        ("moving-house-checklist.md", "quote £1,140", "how much are the removal men charging us"),
        ("allergy-notes.txt", "kitchen drawer next to the fridge",
         "where is the spare adrenaline injector kept at home?"),
        ("allergy-notes.txt", "after 5 minutes",
         "when should the second auto-injector be given if the first doesn't work"),
        ("running-plan.txt", "9 km (the longest)",
         "what's the furthest I'll go in training before race day?"),
        ("running-plan.txt", "easy 6:30 per km", "how fast should my gentle jogs be"),
        ("birthday-party-plan.txt", "£150 cash", "How much is the magician?"),
        ("birthday-party-plan.txt", "21 said yes", "how many kids are coming to the party"),
    ),
    "table": (
        ("home-insurance-policy.docx", "£500",
         "What is the excess if the washing machine leaks through the ceiling?"),
        ("home-insurance-policy.docx", "£2,000",
         "what is the most they'd pay out for one expensive thing like a ring"),
        ("home-insurance-policy.docx", "not covered",
         "Are our belongings insured when we take them on holiday?"),
        ("school-timetable.docx", "Swimming at Northmoor Leisure Centre",
         "what does Maple class do after lunch on Wednesdays?"),
        ("school-timetable.docx", "Music with Mr Rahman", "Tuesday afternoon lesson Year 5"),
        ("term-dates.html", "Monday 5 January 2026",
         "When do the children go back after the Christmas holidays?"),
        ("lasagne-recipe.html", "38 g", "How much protein is in one portion of the lasagne?"),
        ("recycling-centre.html", "9am to 3.30pm",
         "What time does the Millbrook tip shut in winter?"),
        ("dentist.html", "£326.70", "How much would a crown cost on the NHS?"),
        ("paint-colours.md", "Harbour Blue", "What colour is the downstairs toilet painted?"),
        ("paint-colours.md", "satinwood",
         "which finish did we use on the skirting boards and doors"),
    ),
    "current": (
        ("childminder-agreement.docx", "£7.40 per hour", "What is the childminder's hourly rate?"),
        ("childminder-agreement.docx", "£15 for each 15 minutes",
         "how much extra does Sarah want if we're late picking Nia up"),
        ("term-dates.html", "27 to 31 October 2025", "When is the October half term?"),
        ("term-dates.html", "Wednesday 22 July 2026",
         "what's the last day of school before the summer holidays?"),
        ("heating-schedule.md", "20.5°C",
         "What temperature is the heating set to in the evenings?"),
        ("heating-schedule.md", "06:00-08:00",
         "what time does the house start warming up on a workday morning"),
    ),
}
# fmt: on
