"""The tuning half of the knowledge-search corpus (see ``knowledge_corpus``): the Hollis household.

Appliances, boiler, parking, car insurance, tenancy, swimming, house sitting, bins, baking,
tomatoes, the GP, Wi-Fi, the car, a home server, the window cleaner, a bike, useful numbers.
Search settings may be tuned on these; none of the topics is in ``knowledge_corpus_check``.
"""

from __future__ import annotations

__all__ = ["DOCUMENTS", "QUESTIONS", "UPDATES"]

DOCUMENTS: dict[str, str] = {
    "dishwasher-manual.pdf": """\
@title Kelvar DW-450 Dishwasher - Instructions for use
== Introduction
Thank you for choosing the Kelvar DW-450 freestanding dishwasher. Please read these instructions
before you use it for the first time and keep them for future reference.

The appliance is for household use only. The model and serial numbers are printed on the rating
plate on the inside edge of the door; have them ready when you contact customer service.
== Safety instructions
Dishwasher detergent is corrosive and can cause burns to the eyes, mouth and throat: keep it out
of the reach of children. Do not sit or stand on the open door or on the racks.

Load knives with their points down in the cutlery basket or flat in the upper rack. A damaged
power cord must be replaced by the manufacturer or a similarly qualified person.
== Installation
Place the dishwasher on a firm, level floor and turn the adjustable feet to level it. Connect
the inlet hose to a cold water tap; the water pressure must be between 0.04 and 1 MPa.

The end of the drain hose must be no higher than 100 cm above the floor, otherwise the pump
cannot empty the tub. Under a worktop, leave a gap of at least 5 cm behind it for the hoses.
== Programmes
Choose a programme with the P button and press Start/Pause; the display shows the time left.
- Intensive 70°C: heavily soiled pots and pans, 2 h 50 min
- Eco 50°C: normally soiled everyday dishes, the most efficient programme, 3 h 45 min
- Glass 45°C: lightly soiled glasses and cups, 1 h 50 min
- Quick 40°C: lightly soiled dishes without dried-on food, 30 min
Delay start: hold the Delay button to postpone the start by 1 to 24 hours.
== Loading the dishwasher
Scrape off food remains; there is no need to rinse the dishes first. Cups and glasses go in the
upper rack, plates and pans in the lower rack facing the centre.

Not suitable for the dishwasher: wooden chopping boards and spoons, cast iron pans, lead
crystal, hand-painted china, and silver or aluminium items, which may discolour.
== Detergent, rinse aid and salt
Use tablets or powder made for dishwashers, never washing-up liquid. Fill the rinse aid
container when its indicator lights; the dose can be set from 1 to 6 (factory setting 4).

Dishwasher salt softens the water. The salt container is under the lower rack: unscrew the cap,
fill it with water the first time only, then add about 1.5 kg of salt with the funnel supplied.
== Cleaning and care
Clean the filters every 2 weeks. Turn the cylindrical filter anticlockwise, lift it out with the
flat filter, rinse both under running water and refit them until the filter clicks into place.

If the holes in the spray arms are blocked, clear them with a toothpick. To keep the inside
fresh, run Intensive empty with a cup of white vinegar in the upper rack once a month.
== Troubleshooting
If a fault occurs, the display shows an error code. Switch off, check the list, switch on again.
- E1: no water supply. Open the tap fully and check that the inlet hose is not kinked.
- E4: water leak detected; the overflow protection has shut off the water. Call us.
- E9: heating element fault. Call customer service.
White film on glasses: the water hardness setting is too low or the salt container is empty.
== Technical specifications
- Capacity: 13 place settings
- Water consumption: 9.5 litres per Eco cycle
- Noise level: 44 dB(A)
- Dimensions (H x W x D): 850 x 598 x 600 mm; weight 41 kg
== Warranty and customer service
Your dishwasher has a warranty of 2 years from the date of purchase, covering parts and labour.
Register it at kelvar.co.uk/register within 28 days to extend the warranty to 3 years.
The warranty does not cover glass parts, filters, limescale damage or commercial use. Customer
service: 0345 601 2288, Monday to Friday 8am to 6pm. Keep your receipt as proof of purchase.
""",
    "washing-machine-manual.pdf": """\
@title Norvik WM-8 front-loading washing machine - User guide
== Before first use
Before you use the machine, remove the four transit bolts from the back panel with the spanner
supplied. Keep the bolts and refit them whenever the machine is moved, for example to a new
house: they hold the drum still and stop it being damaged in transport.
== Safety
Do not open the door while water is visible in the drum. The door stays locked for about 2
minutes after the end of a programme. Do not wash items cleaned with solvents or petrol.
== Installing the machine
Connect the machine to the cold water supply only. The end of the drain hose must be between 60
and 90 cm above the floor. Level the machine with the feet, or it will shake during the spin.
== Programmes
- Cotton 40°C: max 8 kg, spin 1400 rpm, 3 h 20 min
- Eco 40-60: mixed cottons, the most efficient programme for normally soiled laundry
- Synthetics 40°C: max 4 kg, spin 1000 rpm
- Wool/Hand wash 30°C: max 2 kg, spin 800 rpm
- Quick 15' 20°C: lightly worn clothes up to 2 kg
== Detergent and dosing
Fabric softener goes in the compartment marked with a flower; compartment I is for pre-wash
detergent and II for the main wash. Never fill above the MAX mark.
== Cleaning and maintenance
Clean the pump filter every 3 months, or whenever the machine does not drain. It is behind the
small flap at the bottom right: let the water out through the emergency hose into a shallow
tray, then unscrew the filter anticlockwise and rinse it.
Run the Drum Clean programme at 90°C without laundry every four weeks to prevent smells.
== Troubleshooting
- E10: no water intake. Check that the tap is open and the inlet hose is not kinked.
- E21: the water does not drain. Clean the pump filter and check the drain hose.
If the load is unbalanced, the machine reduces the spin speed. Redistribute the items by hand.
== Technical data
- Capacity: 8 kg; maximum spin speed 1400 rpm
- Energy: 52 kWh per 100 cycles (Eco 40-60); water: 48 litres per cycle
- Dimensions (H x W x D): 845 x 597 x 550 mm; weight 68 kg
== Guarantee
Norvik guarantees this washing machine for 2 years from the date of purchase, plus a 10-year
guarantee on the inverter motor (parts only). The guarantee does not cover the pump filter,
hoses, or damage from coins and other foreign objects. Repairs: 0330 221 4509.
""",
    "boiler-service-report.pdf": """\
@title Hartley Heating Ltd - Boiler service record
== Service record: appliance details
Customer: Mr T. Hollis, 14 Alder Road, Riverside RV3 8LN. Date of visit: 15 October 2024.
Engineer: Dan Price, Gas Safe registration number 512884.
Appliance: Calora 30i combination boiler, in the airing cupboard on the landing, installed 2017.
Readings: gas pressure 20.1 mbar; flue gas CO 38 ppm, CO2 9.1%. System pressure was 0.6 bar
and has been topped up to 1.5 bar (cold).
== Service record: work carried out and advice
Work carried out: cleaned the heat exchanger and the condensate trap, replaced the trap seal,
checked the flue and tested the safety devices. The appliance is safe to use.
Advice: if the gauge falls below 1 bar again, top it up with the filling loop under the boiler.
If it keeps dropping there may be a leak: please call us.
Next service due: by 15 October 2025. Cost of this visit: £95.00, paid by card.
""",
    "parking-permit.pdf": """\
@title Riverside District Council - Resident parking permit
== Your resident parking permit
Dear Mr Hollis, your resident parking permit for Zone K (Alder Road and Birch Grove) is
enclosed. Vehicle: Skoda Octavia, registration KX19 TBO.
The permit is valid from 1 April 2025 until 31 March 2026 and costs £72 for the year. Permit
holders may park in Zone K bays Monday to Saturday, 8am to 6.30pm.
Visitors: each household may buy up to 60 visitor scratch cards a year, at £1.50 per card for a
full day. We will email a reminder 4 weeks before the permit expires. Parking Services.
""",
    "car-insurance-policy.docx": """\
= Motor insurance policy schedule
Brightwater Insurance, policy number MTR-50917-Q. Please read this schedule with your policy
booklet and tell us straight away if anything is wrong.
# Policy details
Policyholder: Thomas Hollis. Period of cover: 1 February 2025 to 31 January 2026. Vehicle:
Skoda Octavia Estate, registration KX19 TBO. Named drivers: Thomas and Priya Hollis.
# What is covered
| Cover | Included | Limit or excess |
| Accidental damage, fire and theft | Yes | £250 compulsory + £150 voluntary excess |
| Windscreen replacement | Yes | £115 excess |
| Windscreen repair | Yes | no excess |
| Courtesy car | Yes | small hatchback while our approved garage repairs your car |
| Personal belongings in the car | Yes | up to £300 |
| Driving in Europe | Yes | up to 90 days per trip |
| Breakdown assistance | No | can be added for £64 a year |
# No claims discount
You have 6 years' no claims discount. It is protected: you can make two claims in three years
without losing it, although your premium may still go up.
# Making a claim
Call our claims line on 0800 048 3310, open 24 hours a day. A cancellation fee of £45 applies
after the 14-day cooling-off period.
""",
    "tenancy-agreement.docx": """\
= Assured shorthold tenancy agreement
# The parties and the property
This agreement is between Mrs Helen Carver (the landlord) and Thomas and Priya Hollis (the
tenants) for the house at 14 Alder Road, Riverside RV3 8LN, let unfurnished.
# Term, rent and deposit
The tenancy is for 12 months from 1 July 2024. The rent is £1,150 per calendar month, payable
by standing order on the 1st. The deposit of £1,326 is held by the Deposit Protection Service.
# Ending the tenancy
The tenants must give at least one month's written notice, ending on a rent day. The landlord
must give at least two months' notice.
# Repairs
The landlord is responsible for repairs to the structure and exterior, the heating and hot water,
and the drains. The tenants replace light bulbs and smoke alarm batteries.
# Pets and smoking
One cat is allowed with the landlord's written consent. No smoking inside the property.
# Fee schedule
| Permitted payment | Amount |
| Replacement key or fob | £25 per key |
| Change of tenant or sharer at the tenants' request | £50 |
| Rent paid more than 14 days late | interest at 3% above Bank of England base rate |
| Ending the tenancy early at the tenants' request | the landlord's reasonable re-letting costs |
""",
    "swimming-club-timetable.docx": """\
= Otters Swimming Club - autumn timetable
# Sessions
| Day | Group | Time | Pool |
| Monday | Stages 1-3 (beginners) | 17:00-17:45 | Learner pool |
| Tuesday | Stages 4-6 | 17:45-18:30 | Main pool |
| Wednesday | Development squad | 06:15-07:15 | Main pool |
| Thursday | Adult improvers | 19:30-20:15 | Main pool |
| Saturday | Parent and baby | 09:00-09:30 | Learner pool |
# Fees
Lessons cost £38 per month by direct debit, paid in advance. Squad swimmers pay £46 per month.
# Things to know
No lessons in half term week or on bank holidays. Please arrive 10 minutes early. Swim hats are
compulsory for the squad. Head coach: Linda Baines, 07700 900281.
""",
    "house-sitting-instructions.docx": """\
= Notes for Jo - house sitting 2 to 16 August
Thank you so much for looking after the house and Mochi! Everything should be in here.
# Alarm
The panel is behind the front door. When you come in, type 7392 and press OFF. When you go out,
type 7392 and press ON, then leave within 30 seconds.
# Mochi
Half a pouch of wet food in the morning and half in the evening, plus a small handful of dry
biscuits. She is an indoor cat, so please don't let her out.
# Plants, post and bins
Water the tomatoes in the greenhouse every evening unless it has rained. Post on the hall table.
The neighbours put our bins out, so nothing to do there.
# If something goes wrong
The spare key is with Margaret at number 12, who is home most days. The vet and the plumber are
on the list on the fridge.
""",
    "bins-2023.html": """\
@site Riverside District Council | content | Bins and recycling, Council tax, Parking, Planning
@related Report a missed bin, Order a new bin, Bulky waste collection
<h1>Bin collection schedule</h1>
<p class="updated">Last updated: 9 January 2023</p>
<p>Collection days for Round 7: Alder Road, Birch Grove, Cedar Close and Elm Way.</p>
<h2>Your collections</h2>
<ul><li>General waste (black bin): Wednesday, every other week</li>
<li>Recycling (blue bin): Wednesday, in the weeks between general waste</li>
<li>Food waste (small green caddy): every Wednesday</li>
<li>Garden waste (brown bin): Friday, March to November; subscription £45 a year</li></ul>
<p>Please put your bins out by 7am on collection day, with the lid closed.</p>
<h2>Christmas and New Year 2023</h2>
<table><caption>Revised collection days</caption>
<tr><th>Usual day</th><th>Revised day</th></tr>
<tr><td>Wednesday 27 December</td><td>Friday 29 December</td></tr>
<tr><td>Wednesday 3 January</td><td>Thursday 4 January</td></tr>
</table>
""",
    "bins-2025.html": """\
@site Riverside District Council | main | Bins and recycling, Council tax, Parking, Planning
@related Report a missed bin, Order a new bin, Garden waste subscriptions
<h1>Bin collection schedule</h1>
<p class="updated">Last updated: 6 January 2025. This page replaces the 2023 schedule: from
January 2025 Round 7 collections move from Wednesday to Tuesday.</p>
<p>Collection days for Round 7: Alder Road, Birch Grove, Cedar Close and Elm Way.</p>
<h2>Your collections</h2>
<ul><li>Recycling (blue bin): collected on Tuesdays, every other week</li>
<li>General waste (black bin): Tuesday, in the weeks between recycling</li>
<li>Food waste caddy: every Tuesday</li>
<li>Garden waste (brown bin): Thursdays from March to November; subscription £52 a year</li></ul>
<h2>What goes in the blue bin</h2>
<ul><li>Paper, card, food tins, drinks cans, plastic bottles, pots, tubs and trays</li>
<li>Glass bottles and jars go in the black box, not the blue bin</li></ul>
<h2>Christmas and New Year 2025</h2>
<table><tr><th>Usual collection</th><th>Revised collection</th></tr>
<tr><td>Tuesday 23 December</td><td>no change</td></tr>
<tr><td>Tuesday 30 December</td><td>Friday 2 January</td></tr>
<tr><td>Tuesday 6 January</td><td>Wednesday 7 January</td></tr></table>
""",
    "sourdough-recipe.html": """\
@site The Crumb Diaries | article | Recipes, Bread, Cakes, Starter help, About
@related No-knead focaccia, Feeding your starter, Rye and caraway loaf
<h1>Easy overnight sourdough loaf</h1>
<p class="byline">By Nadia Reyes, 14 February 2024</p>
<p>This is the loaf I bake every weekend. You need an active starter that doubles within about
6 hours of feeding; everything else is patience.</p>
<h2>Ingredients</h2>
<ul><li>500 g strong white bread flour</li><li>350 g lukewarm water</li>
<li>100 g active sourdough starter</li><li>10 g fine sea salt</li></ul>
<h2>Method</h2>
<ol><li>Mix the flour with 325 g of the water and leave for 1 hour.</li>
<li>Add the starter, the salt and the rest of the water and squeeze it through the dough.</li>
<li>Do four sets of stretch and folds 30 minutes apart, then leave until about 50% bigger.</li>
<li>Shape, place in a floured banneton, cover and put it in the fridge for 12 to 16 hours.</li>
<li>Heat the oven to 250°C with a lidded cast iron pot inside for 45 minutes.</li>
<li>Bake with the lid on for 20 minutes, then lid off at 230°C for 25 minutes more.</li></ol>
<h2>Storing</h2>
<p>Keep the bread cut side down on a board for 2 days, or slice it and freeze.</p>
""",
    "tomato-growing-guide.html": """\
@site Plot & Pot | page | Grow your own, Flowers, Pests and diseases, Garden jobs, Shop
@related Growing chillies indoors, Making comfrey feed, Greenhouse hygiene
<h1>Growing tomatoes: a beginner's guide</h1>
<p>Tomatoes are one of the most rewarding crops, in a greenhouse, in pots or in a sunny bed.</p>
<h2>Sowing and planting out</h2>
<p>Sow the seeds 1 cm deep in small pots on a warm windowsill at 18-21°C. Harden the plants off
for a week and plant them outside after the last frost, usually in late May. Space plants 45 cm
apart, with 60 cm between rows, and push in a cane next to each.</p>
<h2>Watering and feeding</h2>
<p>Water deeply at the base. Irregular watering causes split fruit and blossom end rot, a sunken
black patch at the bottom of the fruit.</p>
<p>Once the first truss has set fruit, feed once a week with a high-potash tomato feed.</p>
<h2>Side shoots</h2>
<p>On cordon varieties, pinch out the side shoots between the main stem and the leaf stalks when
they are 2-3 cm long. Bush varieties need no pinching.</p>
<h2>Sowing and harvest calendar</h2>
<table><tr><th>Variety</th><th>Type</th><th>Sow indoors</th><th>Harvest</th></tr>
<tr><td>Gardener's Delight</td><td>cherry, cordon</td><td>late February</td>
<td>July to October</td></tr>
<tr><td>Moneymaker</td><td>cordon</td><td>March to April</td><td>August to September</td></tr>
<tr><td>Tumbling Tom</td><td>bush, trailing</td><td>early March</td><td>from early July</td></tr>
<tr><td>San Marzano</td><td>plum, cordon</td><td>mid February</td>
<td>late August to October</td></tr></table>
""",
    "gp-surgery.html": """\
@site Willow Lane Medical Practice | main | Appointments, Prescriptions, Test results, Our team
@related Travel vaccinations, Register with us, Patient participation group
<h1>Opening hours and services</h1>
<p>Welcome to Willow Lane Medical Practice. Phone lines open at 8am: call 01632 960200.</p>
<table><caption>Surgery opening hours</caption>
<tr><th>Day</th><th>Hours</th></tr>
<tr><td>Monday</td><td>08:00-18:30</td></tr>
<tr><td>Tuesday</td><td>07:30-18:30 (early clinic)</td></tr>
<tr><td>Wednesday</td><td>08:00-20:00</td></tr>
<tr><td>Thursday</td><td>08:00-13:00, closed in the afternoon for staff training</td></tr>
<tr><td>Friday</td><td>08:00-18:00</td></tr>
<tr><td>Saturday and Sunday</td><td>closed</td></tr></table>
<h2>Repeat prescriptions</h2>
<p>Order through the NHS App or our website. Please allow 3 working days before you collect
from your pharmacy.</p>
<h2>When we are closed</h2>
<p>If you need a doctor urgently when the surgery is closed, call NHS 111. In an emergency,
call 999.</p>
""",
    "banana-bread.md": """\
# Grandma's banana bread

Makes one 2 lb loaf. The browner the bananas the better; black skins are perfect.

## Ingredients

- 3 very ripe bananas (about 350 g peeled)
- 75 g melted butter, 150 g light brown sugar
- 1 egg, beaten, and 1 tsp vanilla
- 1 tsp bicarbonate of soda and a pinch of salt
- 190 g plain flour, a handful of walnuts (optional)

## Method

1. Heat the oven to 170°C fan (190°C conventional, gas mark 5) and line a 2 lb loaf tin.
2. Mash the bananas, stir in the butter, then the sugar, egg and vanilla.
3. Sprinkle over the bicarb and salt, then fold in the flour and walnuts. Don't overmix.
4. Bake for 55-60 minutes, until a skewer comes out clean. Cover with foil if it browns early.

Keeps 4 days wrapped in foil. Grandma used half the sugar and added chocolate chips instead.
""",
    "wifi-new.md": """\
# Wi-Fi details

Last updated: 12 March 2025 (new router from Skyline, this replaces the 2023 note)

## Home network

- Network name: Hollis-Home-5G
- Password: marble-otter-3519
- The old network still shows up on some devices: forget it and join the new one.

## Guest network

For visitors, so they can't see the printer or the home server.

- Network name: Hollis-Guest
- Password: visitors-welcome-8

## Router

Skyline Hub 6 in the hall. Admin page 192.168.1.1, admin password on the sticker underneath.
""",
    "window-cleaner-2023.md": """\
# Window cleaner prices

Last updated: 9 June 2023

Gary (Sparkle & Shine) comes every 4 weeks, usually on a Monday. Pay by bank transfer.

| House | Price per clean |
|---|---|
| 2-bed terrace | £14 |
| 3-bed semi (ours) | £18 |
| 4-bed detached | £24 |
| Conservatory roof | £30 extra |
""",
    "car-maintenance-log.md": """\
# Octavia maintenance log

Skoda Octavia Estate 1.5 TSI, reg KX19 TBO, bought used in January 2023 at 38,400 miles.

## Useful to know

- Oil: 5W-30 to VW 504 00 spec, about 4.5 litres with a new filter
- Tyres: 205/55 R16; front 2.3 bar (33 psi), rear 2.2 bar (32 psi)
- MOT due: 20 March 2026

## Service history

| Date | Mileage | Work done | Garage | Cost |
|------|---------|-----------|--------|------|
| 14 Mar 2023 | 41,200 | Full service and brake fluid | Kingsway Motors | £289 |
| 2 Nov 2023 | 47,850 | Front brake pads and discs | Kwik Tyre Centre | £312 |
| 20 Mar 2024 | 52,100 | MOT (pass) and interim service | Kingsway Motors | £164 |
| 5 Sep 2024 | 55,900 | New battery | Kwik Tyre Centre | £135 |
| 18 Mar 2025 | 61,300 | Full service, MOT (pass), wiper blades | Kingsway Motors | £338 |
""",
    "home-server-notes.md": """\
# Home server notes

The Raspberry Pi on the shelf by the router runs Pi-hole (ad blocking for the whole network)
and does the nightly backups. Fixed address 192.168.1.40 (DHCP reservation on the router).

## Pi-hole

Web admin: http://192.168.1.40:8080/admin

```yaml
services:
  pihole:
    image: pihole/pihole:latest
    ports:
      - "53:53/udp"
      - "8080:80/tcp"
    environment:
      TZ: "Europe/London"
    restart: unless-stopped
```

## Backups

A cron job copies the shared folders to the USB disk every night at 02:30 with rsync. It keeps
14 daily copies; older ones are deleted automatically. The copies are in /backups/daily.
""",
    "wifi.txt": """\
WI-FI DETAILS
Last updated: 3 May 2023

network: Hollis-Home
password: copper-kettle-72

ROUTER
- Skyline Hub 4, in the hall
- admin page 192.168.1.1, admin password on the sticker under the router

if the internet is slow, turn the router off at the wall for 30 seconds
""",
    "window-cleaner.txt": """\
WINDOW CLEANER PRICES
Last updated: 2 June 2025 - Gary's new prices, these replace the 2023 list

Sparkle & Shine (Gary), every 4 weeks, still on Mondays.

  2-bed terrace .......... £16
  3-bed semi (ours) ...... £21
  4-bed detached ......... £28
  conservatory roof ...... £35 extra
  solar panels ........... £45 (new service)

Payment: bank transfer or cash, within a week of the clean.
""",
    "bike-maintenance.txt": """\
Bike notes - the grey Ribble road bike, frame size 54 cm, bought Aug 2022 from Cycle Hub

Tyres:
- 700x28c Continental GP5000
- front 80 psi, rear 85 psi

Chain:
* clean and re-lube every 200 miles, or after any wet ride
* replace at 0.5% wear on the checker (last done March 2024)

Brakes: Shimano 105 hydraulic discs, pads are resin L03A
Service at Cycle Hub once a year before spring, about £90.
""",
    "emergency-contacts.txt": """\
USEFUL NUMBERS AND WHERE THINGS ARE
===================================

Trades
------
plumber: Kev Marsh, 07700 900412 (fitted the bathroom, reliable)
electrician: Hollow Oak Electrical, 01632 960318
locksmith: KeyFix 24h, 01632 960644

Emergencies
-----------
gas leak: National Gas emergency line 0800 111 999 (free, 24 hours)
power cut in the area: call 105
vet: Riverside Vets, 01632 960775; out of hours Vets Now 01632 960999

Where things are
----------------
stopcock: under the kitchen sink, behind the bleach
fuse box: cupboard under the stairs, torch on the shelf above it
""",
}
"""File name -> source, in the forms ``knowledge_corpus`` writes files from."""

UPDATES: tuple[tuple[str, str, str, str], ...] = (
    ("wifi.txt", "wifi-new.md", "2023-05-03", "2025-03-12"),
    ("bins-2023.html", "bins-2025.html", "2023-01-09", "2025-01-06"),
    ("window-cleaner-2023.md", "window-cleaner.txt", "2023-06-09", "2025-06-02"),
)
"""(older file, newer file, older date, newer date): the newer one replaces the older."""

# fmt: off
QUESTIONS: dict[str, tuple[tuple[str, str, str], ...]] = {
    # kind: (file or file#page, needle, question)
    "keyword": (
        ("dishwasher-manual.pdf#1", "inside edge of the door",
         "where is the serial number on the Kelvar dishwasher?"),
        ("dishwasher-manual.pdf#8", "water leak detected", "Kelvar dishwasher error E4"),
        ("dishwasher-manual.pdf#10", "0345 601 2288", "dishwasher customer service phone"),
        ("washing-machine-manual.pdf#7", "the water does not drain", "Norvik washing machine E21"),
        ("boiler-service-report.pdf#2", "by 15 October 2025",
         "When is the next boiler service due?"),
        ("parking-permit.pdf#1", "31 March 2026", "when does our resident parking permit expire?"),
        ("car-insurance-policy.docx", "0800 048 3310", "car insurance claims line number"),
        ("swimming-club-timetable.docx", "£38 per month", "Otters swimming lessons cost"),
        ("house-sitting-instructions.docx", "Half a pouch of wet food",
         "how much food does Mochi get in the morning"),
        ("sourdough-recipe.html", "10 g fine sea salt", "how much salt in the sourdough"),
        ("wifi-new.md", "visitors-welcome-8", "guest wifi password"),
        ("banana-bread.md", "170°C fan", "banana bread oven temperature fan oven"),
        ("home-server-notes.md", "http://192.168.1.40:8080/admin", "pi-hole admin page address"),
        ("window-cleaner.txt", "£45 (new service)", "does Gary clean solar panels?"),
        ("bike-maintenance.txt", "resin L03A", "which brake pads does the bike use"),
        ("emergency-contacts.txt", "01632 960644", "locksmith phone number"),
    ),
    "paraphrase": (
        ("dishwasher-manual.pdf#6", "under the lower rack",
         "where does the water softener stuff go in the dishwasher"),
        ("dishwasher-manual.pdf#7", "every 2 weeks",
         "how often should I rinse out the mesh in the bottom of the dishwasher"),
        ("dishwasher-manual.pdf#9", "13 place settings",
         "How many people's crockery can the dishwasher take in one go?"),
        ("washing-machine-manual.pdf#6", "every 3 months",
         "how often do I need to empty the little trap at the bottom of the washer?"),
        ("washing-machine-manual.pdf#1", "refit them whenever the machine is moved",
         "we're moving house, how do I stop the laundry machine getting damaged in the van?"),
        ("washing-machine-manual.pdf#5", "marked with a flower",
         "which bit of the soap drawer is for conditioner"),
        ("boiler-service-report.pdf#1", "1.5 bar (cold)",
         "what should the needle on the central heating gauge point at"),
        ("parking-permit.pdf#1", "£1.50 per card",
         "how much does it cost for a friend to leave their car outside our house for the day"),
        ("tenancy-agreement.docx", "at least one month's written notice",
         "how much warning do we have to give before we move out of the rented house?"),
        ("house-sitting-instructions.docx", "type 7392 and press OFF",
         "how do I stop the burglar alarm going off when I get back to the house?"),
        ("house-sitting-instructions.docx", "Margaret at number 12",
         "who else has a spare set of keys?"),
        ("bins-2025.html", "go in the black box", "do empty jam jars go in the blue bin?"),
        ("sourdough-recipe.html", "12 to 16 hours",
         "how long do I leave the shaped dough to rest in the cold before it goes in the oven"),
        ("tomato-growing-guide.html", "45 cm apart",
         "what gap should I leave between each plant when they go into the ground?"),
        ("gp-surgery.html", "allow 3 working days",
         "how long before my regular medication is ready to pick up"),
        ("banana-bread.md", "55-60 minutes", "how long does grandma's loaf need to cook for?"),
        ("car-maintenance-log.md", "5W-30", "what engine oil should I buy to top up the Skoda"),
        ("home-server-notes.md", "14 daily copies",
         "how far back do the automatic copies of our files go?"),
        ("bike-maintenance.txt", "rear 85 psi",
         "how much air should go in the back wheel of my bicycle"),
        ("bike-maintenance.txt", "every 200 miles",
         "how often do I need to grease the drivetrain on the Ribble?"),
        ("emergency-contacts.txt", "under the kitchen sink",
         "where do I shut off the water to the whole house?"),
        ("emergency-contacts.txt", "call 105",
         "who do I ring if all the lights go out on our street"),
    ),
    "table": (
        ("car-insurance-policy.docx", "£115 excess",
         "what do I pay towards a new front glass on the car?"),
        ("car-insurance-policy.docx", "up to 90 days per trip",
         "how long can we take the car abroad for on the insurance"),
        ("tenancy-agreement.docx", "£25 per key",
         "What does the landlord charge if I lose a key?"),
        ("tenancy-agreement.docx", "interest at 3% above Bank of England base rate",
         "what's the penalty if the rent goes in more than a fortnight late"),
        ("swimming-club-timetable.docx", "06:15-07:15",
         "what time is the development squad session?"),
        ("bins-2025.html", "Friday 2 January",
         "the bin collection between Christmas and New Year - when is it happening instead?"),
        ("tomato-growing-guide.html", "mid February",
         "when should I start the San Marzano seeds off?"),
        ("tomato-growing-guide.html", "from early July",
         "when will the trailing variety be ready to pick"),
        ("gp-surgery.html", "08:00-20:00", "is the doctors open late on any evening?"),
        ("car-maintenance-log.md", "£312", "how much were the new front brakes on the car"),
        ("car-maintenance-log.md", "55,900",
         "what was the mileage when we had the battery replaced?"),
    ),
    "current": (
        ("bins-2025.html", "collected on Tuesdays", "Which day is the recycling collected?"),
        ("bins-2025.html", "£52 a year",
         "what does it cost per year to get the grass cuttings bin emptied"),
        ("wifi-new.md", "marble-otter-3519", "What is the Wi-Fi password?"),
        ("wifi-new.md", "Hollis-Home-5G", "which network should my phone join at home"),
        ("window-cleaner.txt", "£21", "how much does the window cleaner charge for our house?"),
        ("window-cleaner.txt", "£35 extra",
         "what's the additional cost for doing the glass roof at the back"),
    ),
}
# fmt: on
